import type { Db } from '../../store/index.ts';
import type { SuspensionReason } from '../../contract/monitors.ts';
import { suspendMonitor } from './suspendMonitor.ts';

/**
 * queued → skipped with the reason (not submitted: the monitor is paused, over its cap, the
 * balance is short, its polygon upload is gone); with `suspend`, the monitor is suspended in
 * the same transaction. False when the run was no longer queued.
 */
export async function skipRun(db: Db, run: { monitorId: string; sceneId: string }, reason: string, now: Date, suspend?: SuspensionReason): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const at = now.toISOString();
    const res = await tx
      .updateTable('monitor_runs')
      .set({ status: 'skipped', reason, updated_at: at })
      .where('monitor_id', '=', run.monitorId)
      .where('scene_id', '=', run.sceneId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return false;
    if (suspend) await suspendMonitor(tx, run.monitorId, suspend, reason, now);
    return true;
  });
}
