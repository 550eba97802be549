/**
 * Sends one due delivery: claim it, sign the event with the webhook's secrets in force,
 * POST it, record the outcome and schedule the next attempt. Runs off the job path: a slow
 * or dead receiver holds a delivery slot, never a job.
 */
import type { Db, DeliveryRow } from '../store/index.ts';
import type { DeliveryQueue } from './deliveryQueue/port.ts';
import type { SecretBox } from './secretBox.ts';
import { retryDelayMs } from './backoff.ts';
import { claimDelivery } from './transitions/claimDelivery.ts';
import { finishAttempt } from './transitions/finishAttempt.ts';
import { sendWebhook, type AttemptOutcome, type SendOptions } from './send.ts';
import { webhookHeaders } from './signing.ts';

export interface SenderDeps {
  db: Db;
  queue: DeliveryQueue;
  box: SecretBox;
  owner: string;
  allowPrivate: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  now?: () => Date;
  random?: () => number;
  /** Tests: extra TLS trust for a receiver with a self-signed certificate. */
  ca?: SendOptions['ca'];
  log?: { error(o: object, m?: string): void };
  /** Told after each attempt (metrics, benches). */
  onAttempt?: (delivery: DeliveryRow, outcome: AttemptOutcome) => void;
}

/** The body every receiver gets: Standard Webhooks' recommended envelope. */
export function eventBody(event: { type: string; created_at: string; payload: string }): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.created_at)},"data":${event.payload}}`;
}

export class WebhookSender {
  private readonly now: () => Date;

  constructor(private readonly d: SenderDeps) {
    this.now = d.now ?? (() => new Date());
  }

  readonly deliver = async (deliveryId: string): Promise<void> => {
    const { db, owner } = this.d;
    const started = this.now();
    // The hold outlasts the attempt's own time limit, so a live sender never loses it mid-attempt.
    const delivery = await claimDelivery(db, deliveryId, owner, started, this.d.timeoutMs + 30_000);
    if (!delivery) return;
    const found = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('outbox as e', 'e.id', 'd.event_id')
      .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(['e.type', 'e.created_at', 'e.payload', 'w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_expires_at', 'w.disabled_at'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    let outcome: AttemptOutcome;
    let final = false;
    if (!found?.url || !found.secret) {
      outcome = { ok: false, statusCode: null, error: 'the webhook was deleted', body: null };
      final = true;
    } else if (found.disabled_at) {
      outcome = { ok: false, statusCode: null, error: 'the webhook is disabled', body: null };
      final = true;
    } else {
      let secrets: string[];
      try {
        secrets = [this.d.box.open(found.secret)];
        if (found.previous_secret && found.previous_secret_expires_at && found.previous_secret_expires_at > started.toISOString()) {
          secrets.push(this.d.box.open(found.previous_secret));
        }
      } catch (e) {
        this.d.log?.error({ deliveryId, err: (e as Error).message }, 'webhook secret unreadable');
        secrets = [];
      }
      if (secrets.length === 0) {
        outcome = { ok: false, statusCode: null, error: 'the signing secret could not be read by this server', body: null };
      } else {
        const body = eventBody({ type: found.type, created_at: found.created_at, payload: found.payload });
        outcome = await sendWebhook({
          url: found.url,
          headers: webhookHeaders(secrets, delivery.event_id, this.now(), body),
          body,
          timeoutMs: this.d.timeoutMs,
          allowPrivate: this.d.allowPrivate,
          ca: this.d.ca,
        });
      }
    }
    const now = this.now();
    // A deleted or disabled webhook gives up at once: its retry time is past its window.
    const retryAt = final ? new Date(Date.parse(delivery.retry_until) + 1) : new Date(now.getTime() + retryDelayMs(Number(delivery.attempts), this.d.retryBaseMs, this.d.random));
    const result = await finishAttempt(db, delivery, owner, outcome, now, retryAt);
    if (!result) return;
    this.d.onAttempt?.(result.delivery, outcome);
    if (result.disabled) this.d.log?.error({ webhookId: result.delivery.webhook_id }, 'webhook disabled after 24 h of failed deliveries');
    if (result.delivery.status === 'pending' && result.delivery.next_attempt_at) {
      await this.d.queue.schedule(deliveryId, Number(result.delivery.attempts), new Date(result.delivery.next_attempt_at)).catch((e) =>
        this.d.log?.error({ deliveryId, err: String(e) }, 'could not schedule the next delivery attempt (the reconciler will)'),
      );
    }
  };
}
