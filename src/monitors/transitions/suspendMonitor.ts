import type { Db, MonitorRow } from '../../store/index.ts';
import type { SuspensionReason } from '../../contract/monitors.ts';
import { recordEvent } from '../../jobs/outbox.ts';

/**
 * active → suspended with a reason, and monitor.suspended in the same transaction. `tx` must
 * be a transaction (the event commits with the change). Null when the monitor was not active.
 */
export async function suspendMonitor(tx: Db, monitorId: string, reason: SuspensionReason, message: string, now: Date): Promise<MonitorRow | null> {
  const at = now.toISOString();
  const row = await tx
    .updateTable('monitors')
    .set({ state: 'suspended', suspended_reason: reason, suspended_message: message, updated_at: at })
    .where('id', '=', monitorId)
    .where('state', '=', 'active')
    .returningAll()
    .executeTakeFirst();
  if (!row) return null;
  await recordEvent(tx, { accountId: row.account_id, type: 'monitor.suspended', data: { monitor_id: row.id, endpoint_id: row.endpoint_id, reason, message, suspended_at: at }, now: at });
  return row;
}
