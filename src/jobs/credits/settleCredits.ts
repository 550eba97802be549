import type { Db, JobRow } from '../../store/index.ts';
import { moveCredits } from './moveCredits.ts';

/**
 * A job's end: the whole reservation comes back (release) and the actual cost goes out
 * (charge; 0 for a failed job). Runs in the transaction of the terminal transition, so the
 * job cannot end without settling, nor settle twice.
 */
export async function settleCredits(tx: Db, job: JobRow, chargeMicros: number): Promise<void> {
  const reserved = Number(job.credits_reserved_micros);
  if (reserved > 0) {
    await moveCredits(tx, { accountId: job.account_id, jobId: job.id, kind: 'release', delta: reserved, note: 'reservation released' });
  }
  if (chargeMicros > 0) {
    const after = await moveCredits(tx, {
      accountId: job.account_id,
      jobId: job.id,
      kind: 'charge',
      delta: -chargeMicros,
      note: `${job.endpoint_id} ${job.area_sqkm ?? ''} km²`,
    });
    // Cannot happen: the charge is at most the reservation just released.
    if (after === null) throw new Error(`charge of job ${job.id} exceeds the balance`);
  }
}
