/**
 * The job event log (`job_events`, the SSE streams' source) keeps a job's status events as
 * long as the job; its progress events only matter while a client may still resume a stream
 * of the running job, so they are deleted once the job has ended more than a day before. A
 * stream of the job afterwards still sends its final state, and a resumed one its remaining
 * status events.
 */
import type { Db } from '../store/index.ts';
import { TERMINAL_STATUSES } from '../jobs/stateMachine.ts';
import { addDays, isoNow } from '../time.ts';

export const PROGRESS_EVENTS_KEPT_DAYS = 1;

/** Deletes the progress events of jobs that ended before `endedBefore`; returns how many. */
export async function pruneJobEvents(db: Db, endedBefore: string = addDays(isoNow(), -PROGRESS_EVENTS_KEPT_DAYS)): Promise<number> {
  const res = await db
    .deleteFrom('job_events')
    .where('kind', '=', 'progress')
    .where('job_id', 'in', (eb) => eb.selectFrom('jobs').select('jobs.id').where('status', 'in', [...TERMINAL_STATUSES]).where('completed_at', '<', endedBefore))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
