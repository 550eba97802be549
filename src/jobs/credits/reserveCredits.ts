import type { Db } from '../../store/index.ts';
import { moveCredits } from './moveCredits.ts';

/** Submission: the estimate leaves the balance until the job settles. Null when the balance cannot cover it. */
export function reserveCredits(tx: Db, job: { accountId: string; jobId: string; endpoint: string; micros: number }): Promise<number | null> {
  return moveCredits(tx, { accountId: job.accountId, jobId: job.jobId, kind: 'reserve', delta: -job.micros, note: `reserved for ${job.endpoint}` });
}
