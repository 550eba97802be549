import type { Db } from '../../store/index.ts';

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
