/**
 * A completed job's quicklook (src/analysis/quicklook): made after the analysis, stored beside
 * the result, one object per attempt like the result. Never the reason a job fails: an error
 * is logged and the job completes without a quicklook (its fields null).
 */
import { makeQuicklook, type QuicklookImages, type QuicklookRequest } from '../analysis/quicklook/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { CompletionFacts } from '../jobs/transitions/completeJob.ts';
import type { Logger } from './runner.ts';

/** Where an attempt of a job writes its quicklook and its overlay. */
export function quicklookKeys(jobId: string, attempt: number): { quicklook: string; overlay: string } {
  return { quicklook: `quicklooks/${jobId}.${attempt}.png`, overlay: `overlays/${jobId}.${attempt}.png` };
}

/** The quicklook of the analysis just done, or null (none for this endpoint, or it failed: logged). */
export async function quicklookSoftly(request: QuicklookRequest & { jobId: string }, log: Logger): Promise<QuicklookImages | null> {
  const started = Date.now();
  try {
    const images = await makeQuicklook(request);
    if (images) log.info({ jobId: request.jobId, ms: Date.now() - started, bytes: images.quicklook.length + (images.overlay?.png.length ?? 0) }, 'quicklook made');
    return images;
  } catch (e) {
    // A worker shutting down (or a lost lease) aborts the quicklook: the result is ready, so the job completes without one.
    if (request.signal?.aborted) log.info({ jobId: request.jobId }, 'quicklook skipped: the job was stopped');
    else log.error({ jobId: request.jobId, err: e instanceof Error ? e.message : String(e) }, 'quicklook failed; the job completes without one');
    return null;
  }
}

/** Writes the images; the completion facts that name them, or null when a write failed (logged, whatever was written removed). */
export async function storeQuicklook(
  objects: ObjectStore,
  job: { id: string; attempt: number },
  images: QuicklookImages | null,
  log: Logger,
): Promise<CompletionFacts['quicklook']> {
  if (!images) return null;
  const keys = quicklookKeys(job.id, job.attempt);
  try {
    await objects.put(keys.quicklook, Buffer.from(images.quicklook), 'image/png');
    if (images.overlay) await objects.put(keys.overlay, Buffer.from(images.overlay.png), 'image/png');
  } catch (e) {
    log.error({ jobId: job.id, err: String(e) }, 'quicklook write failed; the job completes without one');
    await deleteQuicklook(objects, { key: keys.quicklook, overlay: { key: keys.overlay, bounds: [0, 0, 0, 0] } }).catch(() => {});
    return null;
  }
  return { key: keys.quicklook, overlay: images.overlay ? { key: keys.overlay, bounds: images.overlay.bounds } : null };
}

/** Removes a stored quicklook (a completion refused to a stale attempt, or the retention sweep). */
export async function deleteQuicklook(objects: ObjectStore, stored: CompletionFacts['quicklook']): Promise<void> {
  if (!stored) return;
  await objects.delete(stored.key);
  if (stored.overlay) await objects.delete(stored.overlay.key);
}
