import type { Db } from '../../store/index.ts';
import { TRANSITIONS } from '../stateMachine.ts';

/**
 * A completed job whose result retention has elapsed loses its result: `result_deleted_at`
 * records when (the job itself stays, and the API already answers 410 from
 * `result_expires_at`). The retention sweep deletes the objects first and then calls this, so a
 * sweep that dies in between leaves the job to the next sweep, which deletes again (deleting a
 * missing object is a no-op). One guarded statement: only a completed job, due at `now`, not
 * yet expired — a second sweeper changes nothing. False when the job was not expired by this
 * call.
 */
export async function expireResult(db: Db, jobId: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ result_deleted_at: now })
    .where('id', '=', jobId)
    .where('status', 'in', [...TRANSITIONS.expire.from])
    .where('result_expires_at', '<=', now)
    .where('result_deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The jobs whose result is due to expire at `now` (expireResult's guard), at most `limit`. */
export function resultsDueToExpire(db: Db, now: string, limit: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'result_key', 'quicklook_key', 'overlay_key', 'map_layer_key'])
    .where('status', 'in', [...TRANSITIONS.expire.from])
    .where('result_expires_at', '<=', now)
    .where('result_deleted_at', 'is', null)
    .limit(limit)
    .execute();
}
