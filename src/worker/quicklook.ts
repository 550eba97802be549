/**
 * A completed job's quicklook (src/analysis/quicklook) and, for a time series, its map layer:
 * made after the analysis, stored beside the result, one object per attempt like the result.
 * Never the reason a job fails: an error is logged and the job completes without the picture
 * or the layer (its fields null); one failing does not cost the other.
 */
import { makeMapLayer, makeQuicklook, quicklookBlockGrid, type QuicklookImages, type QuicklookRequest } from '../analysis/quicklook/index.ts';
import { quicklookRasterBlockGrid } from '../analysis/quicklook/rasterCopy.ts';
import type { RasterProduct } from '../imagery/rtc/raster.ts';
import type { AnalysisContext, ResolvedInput } from '../analysis/port.ts';
import type { Sigma0Product } from '../imagery/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { CompletionFacts } from '../jobs/transitions/completeJob.ts';
import type { Logger } from '../logger.ts';

/** What the worker made after the analysis: the quicklook's images and the map layer (UTF-8 GeoJSON), each null when none. */
export interface JobPictures {
  images: QuicklookImages | null;
  mapLayer: Uint8Array | null;
}

/** Where an attempt of a job writes its quicklook, its overlay and its map layer. */
export function quicklookKeys(jobId: string, attempt: number): { quicklook: string; overlay: string; mapLayer: string } {
  return { quicklook: `quicklooks/${jobId}.${attempt}.png`, overlay: `overlays/${jobId}.${attempt}.png`, mapLayer: `maplayers/${jobId}.${attempt}.geojson` };
}

/**
 * For a ship or oil-slick job on a catalog scene, or a building-change job of the analyze family
 * (RTC pair): the quicklook's blocks the detector's tiles pool (so the quicklook needs no second
 * read of the scene); none for an uploaded image, a detect-family pair (its quicklook is the later
 * SAFE in image geometry, not the geocoded grid the tiles hold) or another endpoint.
 */
export function quicklookBlocksFor(endpointId: string, input: ResolvedInput): AnalysisContext['quicklookBlocks'] {
  // (The change module asks only in the analyze family: modules/change.ts.)
  if ((endpointId === 'newbuilding' || endpointId === 'disappearbuilding') && input.kind === 'pair') {
    const aoi = input.aoi;
    return (raster, polarisation) => quicklookRasterBlockGrid(raster as RasterProduct, polarisation, aoi);
  }
  if ((endpointId !== 'ship' && endpointId !== 'oilslick') || input.kind === 'image') return undefined;
  const aoi = input.kind === 'scene' ? null : 'aoi' in input ? input.aoi : null;
  return (product, polarisation, region) => quicklookBlockGrid(product as Sigma0Product, polarisation, region, aoi);
}

/** The quicklook and map layer of the analysis just done; each null when the endpoint has none or making it failed (logged). */
export async function quicklookSoftly(request: QuicklookRequest & { jobId: string }, log: Logger): Promise<JobPictures> {
  const softly = async <T>(what: string, make: () => Promise<T | null>, size: (made: T) => number): Promise<T | null> => {
    const started = Date.now();
    try {
      const made = await make();
      if (made) log.info({ jobId: request.jobId, ms: Date.now() - started, bytes: size(made) }, `${what} made`);
      return made;
    } catch (e) {
      // A worker shutting down (or a lost lease) aborts it: the result is ready, so the job completes without it.
      if (request.signal?.aborted) log.info({ jobId: request.jobId }, `${what} skipped: the job was stopped`);
      else log.error({ jobId: request.jobId, err: e instanceof Error ? e.message : String(e) }, `${what} failed; the job completes without one`);
      return null;
    }
  };
  const [images, mapLayer] = await Promise.all([
    softly('quicklook', () => makeQuicklook(request), (i) => i.quicklook.length + (i.overlay?.png.length ?? 0)),
    softly('map layer', () => makeMapLayer(request), (l) => l.length),
  ]);
  return { images, mapLayer };
}

/** Writes the objects; the completion facts that name them, or null when there are none (a failed write is logged, whatever it wrote removed). */
export async function storeQuicklook(objects: ObjectStore, job: { id: string; attempt: number }, made: JobPictures, log: Logger): Promise<CompletionFacts['quicklook']> {
  const keys = quicklookKeys(job.id, job.attempt);
  let stored: NonNullable<CompletionFacts['quicklook']> = { key: null, overlay: null, mapLayer: null };
  if (made.images) {
    const { images } = made;
    try {
      await objects.put(keys.quicklook, Buffer.from(images.quicklook), 'image/png');
      if (images.overlay) await objects.put(keys.overlay, Buffer.from(images.overlay.png), 'image/png');
      stored = { ...stored, key: keys.quicklook, overlay: images.overlay ? { key: keys.overlay, bounds: images.overlay.bounds } : null };
    } catch (e) {
      log.error({ jobId: job.id, err: String(e) }, 'quicklook write failed; the job completes without one');
      await deleteQuicklook(objects, { key: keys.quicklook, overlay: { key: keys.overlay, bounds: [0, 0, 0, 0] } }).catch(() => {});
    }
  }
  if (made.mapLayer) {
    try {
      await objects.put(keys.mapLayer, Buffer.from(made.mapLayer), 'application/geo+json');
      stored = { ...stored, mapLayer: { key: keys.mapLayer } };
    } catch (e) {
      log.error({ jobId: job.id, err: String(e) }, 'map layer write failed; the job completes without one');
      await objects.delete(keys.mapLayer).catch(() => {});
    }
  }
  return stored.key || stored.mapLayer ? stored : null;
}

/** Removes a job's stored quicklook, overlay and map layer (a completion refused to a stale attempt, or the retention sweep). */
export async function deleteQuicklook(objects: ObjectStore, stored: CompletionFacts['quicklook']): Promise<void> {
  if (!stored) return;
  if (stored.key) await objects.delete(stored.key);
  if (stored.overlay) await objects.delete(stored.overlay.key);
  if (stored.mapLayer) await objects.delete(stored.mapLayer.key);
}
