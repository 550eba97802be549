import type { Db, JobRow, NewJobRow } from '../../store/index.ts';
import { ApiError } from '../../contract/errors.ts';
import { balanceMicros, fromMicros } from '../credits.ts';
import { reserveCredits } from '../credits/reserveCredits.ts';
import { lockAccount } from './lockAccount.ts';

export type NewJob = Omit<NewJobRow, 'status' | 'attempts'> & { endpoint_id: string; credits_reserved_micros: number };

/**
 * (none) → pending: inserts the job and reserves its credits, in one transaction under the
 * account's lock, so the concurrent-job limit and the balance hold however many API
 * processes submit at once. Throws CONCURRENT_JOB_LIMIT or INSUFFICIENT_CREDITS (nothing
 * is written then).
 */
export async function createJob(
  db: Db,
  job: NewJob,
  limits: { maxConcurrentJobs: number },
  /**
   * Runs first under the account's lock, in the same transaction: what must commit or roll
   * back with the job (a monitor run claiming its scene, its spending cap). Throwing aborts
   * the submission.
   */
  within?: (tx: Db, job: NewJob) => Promise<void>,
): Promise<JobRow> {
  return db.transaction().execute(async (tx) => {
    if (!(await lockAccount(tx, job.account_id))) throw new Error(`no account ${job.account_id}`);
    await within?.(tx, job);
    const active = await tx
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', job.account_id)
      .where('status', 'in', ['pending', 'processing'])
      .executeTakeFirstOrThrow();
    if (Number(active.n) >= limits.maxConcurrentJobs) {
      throw new ApiError(
        'CONCURRENT_JOB_LIMIT',
        `at most ${limits.maxConcurrentJobs} jobs may be pending or processing at once; wait for one to finish`,
        undefined,
        30,
      );
    }
    const inserted = await tx
      .insertInto('jobs')
      .values({ ...job, status: 'pending' })
      .returningAll()
      .executeTakeFirstOrThrow();
    const reserve = job.credits_reserved_micros;
    if (reserve > 0) {
      const after = await reserveCredits(tx, { accountId: job.account_id, jobId: job.id, endpoint: job.endpoint_id, micros: reserve });
      if (after === null) {
        const balance = fromMicros((await balanceMicros(tx, job.account_id)) ?? 0);
        throw new ApiError('INSUFFICIENT_CREDITS', `this job needs ${fromMicros(reserve)} credits; the balance is ${balance}`, {
          required: fromMicros(reserve),
          balance,
        });
      }
    }
    return inserted;
  });
}
