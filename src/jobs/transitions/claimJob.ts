import { sql } from 'kysely';
import type { Db, JobRow } from '../../store/index.ts';
import { TRANSITIONS } from '../stateMachine.ts';

/** pending → processing for `workerId`, holding a lease; null when the job is not pending (someone else has it). */
export async function claimJob(db: Db, jobId: string, workerId: string, leaseSeconds: number): Promise<JobRow | null> {
  const now = new Date();
  const row = await db
    .updateTable('jobs')
    .set({
      status: TRANSITIONS.claim.to,
      started_at: now.toISOString(),
      updated_at: now.toISOString(),
      progress: 0,
      attempts: sql<number>`attempts + 1`,
      lease_owner: workerId,
      lease_expires_at: new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
    })
    .where('id', '=', jobId)
    .where('status', 'in', [...TRANSITIONS.claim.from])
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Takes the oldest pending job for `workerId`, or returns null when none is queued. */
export async function claimNextJob(db: Db, workerId: string, leaseSeconds: number): Promise<JobRow | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const candidate = await db
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', [...TRANSITIONS.claim.from])
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return null;
    const claimed = await claimJob(db, candidate.id, workerId, leaseSeconds);
    if (claimed) return claimed;
    // Another worker won the race for this one; look again.
  }
  return null;
}
