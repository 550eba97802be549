/**
 * Deletes result objects (and the job's quicklook, overlay and map layer, and any fanned-out tile result
 * left under the job: queue/tiles.ts) whose retention has elapsed, and
 * marks each job's result deleted (the expireResult transition). Job metadata stays forever; the
 * API answers 410 GONE from `result_expires_at` even before the sweeper has run.
 */
import type { Db } from '../store/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import { expireResult, resultsDueToExpire } from '../jobs/transitions.ts';
import { isoNow } from '../time.ts';
import { tilePrefix } from '../queue/tiles.ts';

export interface SweepOptions {
  /** The sweep's clock (ISO 8601 UTC): results due at or before it go. */
  now?: string;
  /** At most this many jobs per sweep. */
  batch?: number;
}

/** Returns how many jobs' results this sweep expired. */
export async function sweepExpiredResults(db: Db, objects: ObjectStore, opts: SweepOptions = {}): Promise<number> {
  const now = opts.now ?? isoNow();
  let expired = 0;
  for (const job of await resultsDueToExpire(db, now, opts.batch ?? 500)) {
    for (const key of [job.result_key, job.quicklook_key, job.overlay_key, job.map_layer_key]) if (key) await objects.delete(key);
    await objects.deletePrefix(tilePrefix(job.id));
    if (await expireResult(db, job.id, now)) expired++;
  }
  return expired;
}
