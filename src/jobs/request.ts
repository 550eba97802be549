/**
 * What a submission body becomes once validate.ts has passed it: the request that selection,
 * pricing and the worker read. Its own file, below validate.ts, because selection's geometry
 * (selectAmong.ts, run on the geometry thread by geometry/pool.ts, which validate.ts calls)
 * reads it too.
 */
import type { Family, SubmittableEndpoint } from '../contract/enums.ts';
import type { AoiGeometry } from '../geo/index.ts';
import type { UploadedAis, UploadedImage } from '../uploads/lookup.ts';

export type ValidatedRequest = ValidatedInput & {
  /** ship: the AIS upload named by `ais_id`, matched to the detections. */
  ais?: UploadedAis;
  /** ship: `include_fixed_structures: true` keeps the detections flagged `fixed_structure: true`. */
  includeFixedStructures?: boolean;
  /**
   * ship (always set on a ship request): `near_shore_detection`, or NEAR_SHORE_DETECTION_DEFAULT
   * without it — the candidate classifier judges the candidates within 2 km of the coast.
   */
  nearShoreDetection?: boolean;
};

export type ValidatedInput =
  | {
      pattern: 'scene';
      endpoint: SubmittableEndpoint;
      family: Family;
      /** A GRD name for the detect family; any text for analyze (it fails at job time). */
      sceneId: string;
    }
  | ({ pattern: 'polygon_date'; date: string; dateDirection: 'before' | 'after' | 'nearest' } & PolygonFields)
  | ({ pattern: 'polygon_period'; dateStart: string; dateEnd: string } & PolygonFields)
  | {
      pattern: 'image';
      endpoint: SubmittableEndpoint;
      family: Family;
      /** The image upload named by `tif_id`: what the detector reads. */
      image: UploadedImage;
      aoi: AoiGeometry;
      /** The polygon as submitted, the upload's union, or the image's footprint (valid WKT). */
      wkt: string;
      /** The upload named by `polygon_id`; null for `polygon` or no polygon. */
      polygonId: string | null;
      areaSqkm: number;
      centroid: { lon: number; lat: number };
    };

/** What a `polygon` or `polygon_id` request carries, whichever its dates. */
type PolygonFields = {
  endpoint: SubmittableEndpoint;
  family: Family;
  aoi: AoiGeometry;
  /** The polygon as submitted, or the upload's union (valid WKT): what the geometry thread reads. */
  wkt: string;
  /** The upload named by `polygon_id`; null for `polygon`. */
  polygonId: string | null;
  areaSqkm: number;
  centroid: { lon: number; lat: number };
  orbitDirection: 'ascending' | 'descending' | null;
};
