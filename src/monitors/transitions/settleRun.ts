import { sql } from 'kysely';
import type { Db, JobRow, MonitorRunRow } from '../../store/index.ts';
import { recordEvent } from '../../jobs/outbox.ts';
import { resultPathOf } from '../../jobs/views.ts';
import type { ConditionOutcome } from '../rules.ts';
import { suspendMonitor } from './suspendMonitor.ts';

/**
 * submitted → triggered | not_triggered | failed once its job ended, in one transaction with
 * what follows: monitor.triggered (the job, the summary, the result link) when the condition
 * is met; the failure streak counted, and the monitor suspended when it reaches
 * `maxFailures`; a completed run ends the streak. False when the run was settled already.
 */
export async function settleRun(
  db: Db,
  run: MonitorRunRow,
  job: JobRow,
  outcome: ConditionOutcome | null,
  opts: { now: Date; maxFailures: number; reason?: string },
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const at = opts.now.toISOString();
    const status = job.status === 'failed' ? 'failed' : outcome?.met ? 'triggered' : 'not_triggered';
    const summary = outcome ? { count: outcome.count, bbox: outcome.bbox } : null;
    const res = await tx
      .updateTable('monitor_runs')
      .set({ status, summary: summary ? JSON.stringify(summary) : null, reason: job.status === 'failed' ? job.error_code : (opts.reason ?? null), updated_at: at })
      .where('monitor_id', '=', run.monitor_id)
      .where('scene_id', '=', run.scene_id)
      .where('status', '=', 'submitted')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return false;
    if (status === 'failed') {
      const m = await tx
        .updateTable('monitors')
        .set({ consecutive_failures: sql<number>`consecutive_failures + 1`, updated_at: at })
        .where('id', '=', run.monitor_id)
        .returning(['consecutive_failures'])
        .executeTakeFirst();
      if (m && Number(m.consecutive_failures) >= opts.maxFailures) {
        await suspendMonitor(tx, run.monitor_id, 'repeated_failures', `${m.consecutive_failures} runs in a row failed (last: ${job.error_code})`, opts.now);
      }
      return true;
    }
    await tx.updateTable('monitors').set({ consecutive_failures: 0 }).where('id', '=', run.monitor_id).where('consecutive_failures', '>', 0).execute();
    if (status === 'triggered') {
      const monitor = await tx.selectFrom('monitors').select(['endpoint_id', 'condition']).where('id', '=', run.monitor_id).executeTakeFirst();
      await recordEvent(tx, {
        accountId: run.account_id,
        type: 'monitor.triggered',
        data: {
          monitor_id: run.monitor_id,
          endpoint_id: monitor?.endpoint_id ?? job.endpoint_id,
          condition: monitor ? JSON.parse(monitor.condition) : null,
          job_id: job.id,
          acquired_at: run.scene_time,
          summary,
          result_path: resultPathOf(job),
        },
        now: at,
      });
    }
    return true;
  });
}
