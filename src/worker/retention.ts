/**
 * Deletes result objects (and the job's quicklook and overlay) whose retention has elapsed. Job metadata stays forever; the
 * API answers 410 GONE from `result_expires_at` even before the sweeper has run.
 */
import type { Db } from '../store/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import { isoNow } from '../jobs/time.ts';

export async function sweepExpiredResults(db: Db, objects: ObjectStore, batch = 500): Promise<number> {
  const now = isoNow();
  const expired = await db
    .selectFrom('jobs')
    .select(['id', 'result_key', 'quicklook_key', 'overlay_key'])
    .where('status', '=', 'completed')
    .where('result_expires_at', '<=', now)
    .where('result_deleted_at', 'is', null)
    .limit(batch)
    .execute();
  for (const job of expired) {
    for (const key of [job.result_key, job.quicklook_key, job.overlay_key]) if (key) await objects.delete(key);
    await db.updateTable('jobs').set({ result_deleted_at: isoNow() }).where('id', '=', job.id).execute();
  }
  return expired.length;
}
