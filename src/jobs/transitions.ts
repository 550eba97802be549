/**
 * Each job transition is one guarded UPDATE (`WHERE id = ? AND status IN (from)`) in one
 * transaction with its credit movements. A transition that finds the job in another state
 * changes nothing and returns null: callers treat that as "someone else already did it".
 */
import { sql } from 'kysely';
import type { Db, JobRow } from '../store/index.ts';
import type { Coverage, SceneSelection, Warning } from '../contract/schemas.ts';
import { GENERIC_FAILURE_MESSAGE, JOB_FAILURES, type JobFailureCode } from '../contract/errors.ts';
import { TRANSITIONS } from './stateMachine.ts';
import { moveCredits, priceMicros } from './credits.ts';
import { addDays, isoNow } from './time.ts';

const from = (name: keyof typeof TRANSITIONS) => [...TRANSITIONS[name].from];

/** Takes the oldest pending job for `workerId`, or returns null when none is queued. */
export async function claimNextJob(db: Db, workerId: string, leaseSeconds: number): Promise<JobRow | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const candidate = await db
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', from('claim'))
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

export async function claimJob(db: Db, jobId: string, workerId: string, leaseSeconds: number): Promise<JobRow | null> {
  const now = isoNow();
  const row = await db
    .updateTable('jobs')
    .set({
      status: TRANSITIONS.claim.to,
      started_at: now,
      updated_at: now,
      progress: 0,
      attempts: sql<number>`attempts + 1`,
      lease_owner: workerId,
      lease_expires_at: new Date(Date.now() + leaseSeconds * 1000).toISOString(),
    })
    .where('id', '=', jobId)
    .where('status', 'in', from('claim'))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Extends the lease of a running job; false when the job is no longer this worker's. */
export async function heartbeat(db: Db, jobId: string, workerId: string, leaseSeconds: number, progress?: number): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({
      lease_expires_at: new Date(Date.now() + leaseSeconds * 1000).toISOString(),
      ...(progress === undefined ? {} : { progress: Math.max(0, Math.min(100, Math.floor(progress))) }),
    })
    .where('id', '=', jobId)
    .where('status', '=', 'processing')
    .where('lease_owner', '=', workerId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export interface CompletionFacts {
  resultKey: string;
  areaSqkm: number;
  lat: number | null;
  lon: number | null;
  coverage: Coverage | null;
  sceneSelection: SceneSelection | null;
  warnings: Warning[];
  pricePerSqkm: number;
  retentionDays: number;
}

/**
 * processing → completed, and settles credits: the reservation is released and the actual
 * `area_sqkm` charged, capped at the reservation (the reservation is the most a job can cost).
 */
export async function completeJob(db: Db, jobId: string, workerId: string, facts: CompletionFacts): Promise<JobRow | null> {
  return db.transaction().execute(async (tx) => {
    const now = isoNow();
    const current = await tx.selectFrom('jobs').select(['credits_reserved_micros']).where('id', '=', jobId).executeTakeFirst();
    if (!current) return null;
    const reserved = Number(current.credits_reserved_micros);
    const charge = Math.min(priceMicros(facts.areaSqkm, facts.pricePerSqkm), reserved);
    const row = await tx
      .updateTable('jobs')
      .set({
        status: TRANSITIONS.complete.to,
        completed_at: now,
        updated_at: now,
        progress: 100,
        result_key: facts.resultKey,
        result_expires_at: addDays(now, facts.retentionDays),
        area_sqkm: facts.areaSqkm,
        lat: facts.lat,
        lon: facts.lon,
        coverage: facts.coverage ? JSON.stringify(facts.coverage) : null,
        scene_selection: facts.sceneSelection ? JSON.stringify(facts.sceneSelection) : null,
        warnings: JSON.stringify(facts.warnings),
        credits_used_micros: charge,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', jobId)
      .where('status', 'in', from('complete'))
      .where('lease_owner', '=', workerId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    await settle(tx, row, charge);
    return row;
  });
}

/**
 * pending|processing → failed; releases the whole reservation (failed jobs are never
 * charged). Server-class codes get the fixed generic message.
 */
export async function failJob(
  db: Db,
  jobId: string,
  failure: { code: JobFailureCode; message: string },
  guard: { workerId?: string } = {},
): Promise<JobRow | null> {
  return db.transaction().execute(async (tx) => {
    const now = isoNow();
    const message = JOB_FAILURES[failure.code].serverClass ? GENERIC_FAILURE_MESSAGE : failure.message;
    let update = tx
      .updateTable('jobs')
      .set({
        status: TRANSITIONS.fail.to,
        completed_at: now,
        updated_at: now,
        error_code: failure.code,
        error_message: message,
        credits_used_micros: 0,
        result_key: null,
        area_sqkm: null,
        coverage: null,
        scene_selection: null,
        warnings: '[]',
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', jobId)
      .where('status', 'in', from('fail'));
    // A worker may only fail the job it holds: once its lease is lost the job is someone else's.
    if (guard.workerId) update = update.where('lease_owner', '=', guard.workerId);
    const row = await update.returningAll().executeTakeFirst();
    if (!row) return null;
    await settle(tx, row, 0);
    return row;
  });
}

async function settle(tx: Db, job: JobRow, chargeMicros: number): Promise<void> {
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

/**
 * processing → pending: the job goes back to the queue as it was submitted. Its credit
 * reservation stays held (nothing is charged or released until it completes or fails), so a
 * requeued job settles exactly once, like any other.
 *
 * - Crash recovery (`workerId` absent): the attempt counts, so a job that kills its worker
 *   fails with JOB_INTERRUPTED after `maxAttempts` (see recoverInterruptedJobs).
 * - Shutdown (`workerId`: the worker that holds the lease, and only while it does): the
 *   attempt is given back — the job did nothing wrong; stopping the service is not its failure.
 */
export async function requeueJob(db: Db, jobId: string, guard: { workerId?: string } = {}): Promise<JobRow | null> {
  let update = db
    .updateTable('jobs')
    .set({
      status: TRANSITIONS.requeue.to,
      updated_at: isoNow(),
      progress: null,
      lease_owner: null,
      lease_expires_at: null,
      started_at: null,
      ...(guard.workerId ? { attempts: sql<number>`attempts - 1` } : {}),
    })
    .where('id', '=', jobId)
    .where('status', 'in', from('requeue'));
  if (guard.workerId) update = update.where('lease_owner', '=', guard.workerId);
  return (await update.returningAll().executeTakeFirst()) ?? null;
}

/**
 * Crash recovery: jobs left in `processing` by a worker that is gone (lease expired, or
 * every lease when `all` — the embedded mode at start-up, where no other worker exists).
 * Each goes back to `pending`, or fails with JOB_INTERRUPTED after `maxAttempts` tries so a
 * job that kills its worker cannot loop forever.
 */
export async function recoverInterruptedJobs(db: Db, opts: { all: boolean; maxAttempts: number }): Promise<{ requeued: string[]; failed: string[] }> {
  let query = db.selectFrom('jobs').select(['id', 'attempts']).where('status', '=', 'processing');
  if (!opts.all) query = query.where('lease_expires_at', '<', isoNow());
  const stuck = await query.execute();
  const requeued: string[] = [];
  const failed: string[] = [];
  for (const job of stuck) {
    if (Number(job.attempts) >= opts.maxAttempts) {
      const row = await failJob(db, job.id, { code: 'JOB_INTERRUPTED', message: '' });
      if (row) failed.push(job.id);
      continue;
    }
    if (await requeueJob(db, job.id)) requeued.push(job.id);
  }
  return { requeued, failed };
}
