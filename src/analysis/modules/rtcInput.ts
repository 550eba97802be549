/**
 * The scenes of a resolved job input as the raster sources the change and series detectors
 * read: RTC GeoTIFFs as they are (analyze family), GRD products geocoded onto one UTM grid
 * over the AOI (detect family; src/imagery/geocode).
 */
import { JobFailure } from '../../contract/errors.ts';
import type { AoiGeometry } from '../../geo/types.ts';
import { GRD_GRID_PIXEL_M, utmGridForAoi, type GrdRasterSource, type UtmGrid } from '../../imagery/geocode/index.ts';
import type { PairSources } from '../change/detect.ts';
import type { AnalysisRequest, ResolvedScene } from '../port.ts';
import { safeProductPath } from './sceneInput.ts';

export function rtcPaths(scene: ResolvedScene): { vv: string; vh?: string } | { vv?: string; vh: string } {
  const pick = (pol: 'vv' | 'vh') => {
    const href = scene.assets[pol]?.href;
    return href && !href.startsWith('/vsizip/') ? href : undefined;
  };
  const vv = pick('vv');
  const vh = pick('vh');
  if (vv) return vh ? { vv, vh } : { vv };
  if (vh) return { vh };
  throw new JobFailure('IMAGERY_UNAVAILABLE', 'the selected scenes have no readable VV or VH raster');
}

/**
 * VV and VH of a GRD scene geocoded onto `grid`. A polarisation is used when the product
 * ships its measurement (a data asset; the catalog lists one per measurement TIFF).
 */
export function grdSources(scene: ResolvedScene, grid: UtmGrid): PairSources {
  if (scene.productType !== 'GRD') {
    throw new JobFailure('PROCESSING_ERROR', `the detect family reads GRD products; ${scene.sceneId} is ${scene.productType}`);
  }
  const product = safeProductPath(scene);
  const source = (pol: 'VV' | 'VH'): GrdRasterSource | undefined => (scene.assets[pol.toLowerCase()] ? grdBandSource(product, pol, grid) : undefined);
  const vv = source('VV');
  const vh = source('VH');
  if (vv) return vh ? { vv, vh } : { vv };
  if (vh) return { vh };
  throw new JobFailure('IMAGERY_UNAVAILABLE', 'the selected GRD scene has no VV or VH measurement');
}

/** One polarisation of a GRD product as calibrated, denoised σ0 geocoded onto `grid` (jobs and the CLI alike). */
export function grdBandSource(product: string, polarisation: 'VV' | 'VH', grid: UtmGrid): GrdRasterSource {
  return { kind: 'grd', product, polarisation, grid, quantity: 'sigma0', denoise: true };
}

/**
 * The common grid of a detect-family job: UTM (zone of the AOI's centroid), 10 m pixels
 * (the GRDH spacing), covering the AOI's bounding box. Every scene of the pair or series
 * is geocoded onto it, so pre and post (or all dates) share one pixel grid by construction.
 */
export function detectFamilyGrid(aoi: AoiGeometry): UtmGrid {
  return utmGridForAoi(aoi, GRD_GRID_PIXEL_M);
}

/** The raster sources of one scene for this request's family, on `grid` for the detect family. */
export function sceneSources(request: AnalysisRequest, scene: ResolvedScene, grid: UtmGrid | null): PairSources {
  if (request.family === 'detect') {
    if (!grid) throw new JobFailure('PROCESSING_ERROR', 'a detect-family job needs its common grid');
    return grdSources(scene, grid);
  }
  return rtcPaths(scene);
}
