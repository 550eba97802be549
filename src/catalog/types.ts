/**
 * Scene records: what the catalog knows about one Sentinel-1 acquisition product, whatever
 * it was indexed from (a SAFE folder or zip, an RTC GeoTIFF, a STAC item).
 * docs/catalog.md defines every field; the definitions that matter for selection are
 * `platformGroup`, `relativeOrbit`, `orbitDirection` and `frame` (see samePathFrame).
 */
import type { AoiGeometry } from '../geo/types.ts';

export type Mission = 'S1A' | 'S1B' | 'S1C' | 'S1D';
export type SceneProductType = 'GRD' | 'SLC' | 'OCN' | 'RAW' | 'RTC';
export type OrbitDirection = 'ascending' | 'descending';
export type Timeliness = 'NRT' | 'Fast' | 'Standard';
export type Polarisation = 'VV' | 'VH' | 'HH' | 'HV';

/**
 * Platforms whose relative-orbit numbers refer to one reference ground-track grid, so that
 * equal relative orbits mean equal viewing geometry. Sentinel-1A/B/C/D all fly the same
 * 175-orbit, 12-day reference grid: one group, 'S1'.
 */
export type PlatformGroup = 'S1';

/**
 * Along-track position of a product on its orbit, as the interval of the argument of
 * latitude u (degrees from the ascending node, 0 at the ascending equator crossing, 90 at
 * the northernmost point, 180 at the descending equator crossing) that its footprint spans.
 * `startDeg` is in [0, 360); `endDeg` ≥ `startDeg` and may exceed 360 when the product
 * crosses the ascending node. Two products of one relative orbit image overlapping ground
 * when these intervals overlap (see samePathFrame).
 */
export interface AlongTrackFrame {
  startDeg: number;
  endDeg: number;
  /** OPERA burst id (e.g. `T137-292318-IW1`) when the product is one burst. Informative. */
  burstId?: string;
}

export interface SceneAsset {
  /** Absolute local path, `/vsizip/<zip path>/<entry>` for a member of a zip, or an http(s) URL. */
  href: string;
  /** 'data' for pixels, 'metadata' for XML/JSON sidecars, 'product' for the SAFE folder or zip itself. */
  role?: string;
  /** Polarisation of a data asset. */
  pol?: string;
}

export interface SceneRecord {
  /** Product name (GRD/SLC…), OPERA product id without polarisation, or STAC item id. */
  sceneId: string;
  productType: SceneProductType;
  platform: Mission;
  platformGroup: PlatformGroup;
  /** ISO 8601 UTC with Z, millisecond precision. */
  startTime: string;
  stopTime: string;
  relativeOrbit: number;
  absoluteOrbit: number | null;
  orbitDirection: OrbitDirection;
  frame: AlongTrackFrame;
  /** Polarisations the product declares (it may ship pixels for fewer; see assets). */
  polarisations: Polarisation[];
  /** WGS84 lon/lat footprint. */
  footprint: AoiGeometry;
  /** Data assets are keyed by lower-case polarisation ('vv', 'vh', 'hh', 'hv'). */
  assets: Record<string, SceneAsset>;
  source: 'local' | 'stac';
  timeliness?: Timeliness;
}

export interface SceneQuery {
  intersects?: AoiGeometry;
  /** Inclusive lower bound on the acquisition start. */
  start?: Date;
  /** Inclusive upper bound on the acquisition start. */
  end?: Date;
  /** Product types to return; all when absent. */
  productTypes?: string[];
  orbitDirection?: OrbitDirection;
  limit?: number;
}

/** One file of a local archive as the index last saw it. */
export interface FileStamp {
  path: string;
  mtimeMs: number;
  size: number;
}

/** A file stamp plus the scenes that file contributed to (empty: seen, not a product). */
export interface IndexedFile extends FileStamp {
  sceneIds: string[];
}
