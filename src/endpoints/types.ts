/**
 * What one endpoint is, in one place: the API builds its routes and validates with it, the
 * worker picks the imagery, the scene selector and the detector with it, the CLI lists its
 * detectors from it. Adding an endpoint is its id in src/contract/enums.ts, one file like
 * ship.ts and one line in index.ts.
 */
import type { TSchema } from 'typebox';
import type { EndpointId } from '../contract/enums.ts';
import type { AnalysisModule } from '../analysis/port.ts';
import type { SceneSelectorName } from '../catalog/selection.ts';

export type FamilyName = 'analyze' | 'detect';
export type ImageryProduct = 'GRD' | 'RTC';

export interface EndpointDescriptor<Id extends string = string> {
  id: Id;
  /**
   * The accepted input: `scene` = `scene_id`, or an AOI + `date` (ship, oilslick); `period`
   * = an AOI + `date_start` + `date_end`. The AOI is `polygon` (WKT) or `polygon_id` (an
   * upload), one of the two.
   */
  input: 'scene' | 'period';
  /** `polygon_or_upload`: `polygon` or `polygon_id`; `upload`: `polygon_id` only (fields of an uploaded file). */
  aoi: 'polygon_or_upload' | 'upload';
  /** The request body's JSON schema (validation and OpenAPI). */
  body: TSchema;
  /** Default limits; the area limit is overridable by SARWATCH_AREA_LIMIT_SQKM_<ID>. */
  limits: { areaSqkm: number; maxPeriodYears?: number };
  /** Default credits per km²; overridable by SARWATCH_PRICE_PER_SQKM_<ID>. */
  pricePerSqkm: number;
  /** The imagery product each family analyses (spec: Differences between the two families). */
  imagery: Record<FamilyName, ImageryProduct>;
  /** The scene selection rule of src/catalog/selection.ts (SCENE_SELECTORS). */
  selector: SceneSelectorName;
  /**
   * The detector adapter (src/analysis/modules/*), loaded on first use: the API process and
   * the geometry thread read descriptors without loading any detector.
   */
  detector: () => Promise<AnalysisModule>;
  /** What the job writes: a GeoJSON FeatureCollection, or a zip (served at result.zip). */
  result: 'geojson' | 'zip';
}

export function defineEndpoint<const Id extends EndpointId>(descriptor: EndpointDescriptor<Id>): EndpointDescriptor<Id> {
  return descriptor;
}
