import type { DeliveryRow, Db } from '../../store/index.ts';
import type { AttemptOutcome } from '../send.ts';
import { RETRY_WINDOW_MS } from '../backoff.ts';

export interface AttemptResult {
  delivery: DeliveryRow;
  /** The webhook was disabled by this failure (24 h of failures). */
  disabled: boolean;
}

/**
 * Records the attempt `owner` made, guarded on its hold: delivered, or pending again at
 * `retryAt`, or failed for good once `retryAt` passes the delivery's retry window. A failure
 * starts (or continues) the webhook's failing streak; a streak of 24 h disables the webhook
 * with the reason the account sees. A success ends the streak. Null when the hold was lost.
 */
export async function finishAttempt(
  db: Db,
  delivery: DeliveryRow,
  owner: string,
  outcome: AttemptOutcome,
  now: Date,
  retryAt: Date,
): Promise<AttemptResult | null> {
  return db.transaction().execute(async (tx) => {
    const at = now.toISOString();
    const giveUp = !outcome.ok && retryAt.toISOString() > delivery.retry_until;
    const row = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.ok ? 'delivered' : giveUp ? 'failed' : 'pending',
        next_attempt_at: outcome.ok || giveUp ? null : retryAt.toISOString(),
        delivered_at: outcome.ok ? at : null,
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        last_response_body: outcome.body,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: at,
      })
      .where('id', '=', delivery.id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    if (outcome.ok) {
      await tx.updateTable('webhooks').set({ failing_since: null }).where('id', '=', row.webhook_id).where('failing_since', 'is not', null).execute();
      return { delivery: row, disabled: false };
    }
    await tx.updateTable('webhooks').set({ failing_since: at }).where('id', '=', row.webhook_id).where('failing_since', 'is', null).execute();
    const reason = `every delivery failed for 24 hours (last attempt ${at}: ${outcome.error ?? 'failed'}); fix the receiver and create the webhook again, or re-enable it`;
    const disabled = await tx
      .updateTable('webhooks')
      .set({ disabled_at: at, disabled_reason: reason, updated_at: at })
      .where('id', '=', row.webhook_id)
      .where('disabled_at', 'is', null)
      .where('failing_since', '<=', new Date(now.getTime() - RETRY_WINDOW_MS).toISOString())
      .executeTakeFirst();
    return { delivery: row, disabled: Number(disabled.numUpdatedRows) > 0 };
  });
}
