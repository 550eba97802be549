/**
 * The detector adapters' contract, and which adapter runs for each endpoint_id: by default
 * the one each endpoint descriptor names (src/endpoints); tests inject their own. An
 * endpoint without an adapter fails its jobs with NOT_IMPLEMENTED, uncharged — never a
 * made-up result.
 */
import type { EndpointId, Family } from '../contract/enums.ts';
import type { Coverage, Warning } from '../contract/schemas.ts';
import type { SceneRecord } from '../catalog/types.ts';
import type { AoiGeometry, Polygon } from '../geo/types.ts';
import { ENDPOINTS } from '../endpoints/index.ts';

export interface ResultFeature {
  type: 'Feature';
  id: number;
  geometry: Polygon;
  properties: { area_sqm: number; confidence: number | null } & Record<string, unknown>;
}

export interface ResultCollection {
  type: 'FeatureCollection';
  bbox?: [number, number, number, number];
  features: ResultFeature[];
}

/**
 * The imagery a job analyses, chosen before the analysis runs: a whole scene (scene_id), or
 * the selection for a polygon, with `extent` = polygon ∩ imagery (what to analyse and clip to).
 */
export type ResolvedInput =
  | { kind: 'scene'; scene: SceneRecord }
  | { kind: 'nearest'; scene: SceneRecord; extent: AoiGeometry; aoi: AoiGeometry }
  | { kind: 'pair'; earlier: SceneRecord; later: SceneRecord; extent: AoiGeometry; aoi: AoiGeometry }
  | { kind: 'series'; scenes: SceneRecord[]; extent: AoiGeometry; aoi: AoiGeometry }
  /** An image upload (`tif_id`): `file` is its local copy, fetched by the worker before the analysis. */
  | { kind: 'image'; image: 'geotiff' | 'safe'; key: string; file: string | null; extent: AoiGeometry; aoi: AoiGeometry };

export interface AnalysisRequest {
  jobId: string;
  endpointId: EndpointId;
  family: Family;
  input: ResolvedInput;
  /** Request size limit: a measured coverage.polygon is simplified to fit it. */
  maxRequestBytes: number;
  /**
   * The polygon upload the job names by `polygon_id` (its union is `input.aoi`); a detector
   * that works per feature (per field) reads them here, in upload order, properties kept.
   */
  upload?: { polygonId: string; features(): Promise<UploadFeatureCollection> };
}

export interface UploadFeatureCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; geometry: AoiGeometry; properties: Record<string, unknown> }[];
}

export interface AnalysisContext {
  /** 0–100; shown as the job's `progress`. */
  reportProgress(percent: number): void;
  signal: AbortSignal;
}

export interface AnalysisOutput {
  /** The GeoJSON result (endpoints whose descriptor's result kind is `geojson`). */
  result?: ResultCollection;
  /** The zip result (result kind `zip`, served at result.zip). */
  archive?: Uint8Array;
  /**
   * What the analysis measured itself (building change, time series: the analysed area
   * without no-data, and `measured` coverage). Absent: the selection's estimate stands.
   */
  measured?: { areaSqkm: number; coverage: Coverage | null };
  /** Warnings found while analysing, added to the selection's. */
  warnings?: Warning[];
}

export interface AnalysisModule {
  endpointId: EndpointId;
  run(request: AnalysisRequest, ctx: AnalysisContext): Promise<AnalysisOutput>;
}

export type AnalysisRegistry = ReadonlyMap<string, AnalysisModule>;

export function createRegistry(modules: AnalysisModule[]): AnalysisRegistry {
  return new Map(modules.map((m) => [m.endpointId, m]));
}

/** The detectors this build ships: each endpoint descriptor's adapter, loaded when its first job runs. */
export function defaultRegistry(): AnalysisRegistry {
  return createRegistry(
    ENDPOINTS.map((endpoint) => ({
      endpointId: endpoint.id,
      run: async (request, ctx) => (await endpoint.detector()).run(request, ctx),
    })),
  );
}
