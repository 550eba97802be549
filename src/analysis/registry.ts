/**
 * Which analysis runs for each endpoint_id. A detector registers here when it exists; until
 * then its jobs fail with NOT_IMPLEMENTED and are not charged — never a made-up result.
 */
import type { EndpointId, Family } from '../contract/enums.ts';
import type { Coverage, SceneSelection, Warning } from '../contract/schemas.ts';

export interface ResultFeature {
  type: 'Feature';
  id: number;
  geometry: { type: 'Polygon'; coordinates: number[][][] };
  properties: { area_sqm: number; confidence: number | null } & Record<string, unknown>;
}

export interface ResultCollection {
  type: 'FeatureCollection';
  bbox?: [number, number, number, number];
  features: ResultFeature[];
}

export interface AnalysisRequest {
  jobId: string;
  endpointId: EndpointId;
  family: Family;
  /** The submitted body, already validated at submission. */
  params: Record<string, unknown>;
}

export interface AnalysisContext {
  /** 0–100; shown as the job's `progress`. */
  reportProgress(percent: number): void;
  signal: AbortSignal;
}

export interface AnalysisOutput {
  result: ResultCollection;
  /** Charged area (spec: actually analysed area for the change endpoints). */
  areaSqkm: number;
  lat: number | null;
  lon: number | null;
  coverage: Coverage | null;
  sceneSelection: SceneSelection | null;
  warnings: Warning[];
}

export interface AnalysisModule {
  endpointId: EndpointId;
  run(request: AnalysisRequest, ctx: AnalysisContext): Promise<AnalysisOutput>;
}

export type AnalysisRegistry = ReadonlyMap<string, AnalysisModule>;

export function createRegistry(modules: AnalysisModule[]): AnalysisRegistry {
  return new Map(modules.map((m) => [m.endpointId, m]));
}

/** The detectors this build ships. Ship, oil slick, building change and time series land in later issues. */
export function defaultRegistry(): AnalysisRegistry {
  return createRegistry([]);
}
