/**
 * src/events/: webhooks — Standard Webhooks signing, sealed secrets, the SSRF guard, the
 * delivery queue (store-backed or BullMQ), the sender and its transitions. May import jobs,
 * contract and the ports (store, queue).
 *
 * The webhook operations behind the API: create (the secret shown once), list, get, delete,
 * rotate the secret, re-enable, the delivery log and redelivery. A webhook of another
 * account is "not found", as jobs are.
 */
import { randomUUID } from 'node:crypto';
import type { Db, DeliveryRow, WebhookRow } from '../store/index.ts';
import type { Principal } from '../jobs/accounts.ts';
import { ApiError } from '../contract/errors.ts';
import type { Delivery, DeliveryList, Webhook, WebhookCreateBody, WebhookList, WebhookWithSecret } from '../contract/webhooks.ts';
import type { DeliveryQueue } from './deliveryQueue/port.ts';
import type { SecretBox } from './secretBox.ts';
import { newWebhookSecret } from './signing.ts';
import { checkWebhookUrl, WebhookTargetError } from './ssrf.ts';
import { RETRY_WINDOW_MS } from './backoff.ts';
import { redeliver } from './transitions/redeliver.ts';

export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface WebhookServiceDeps {
  db: Db;
  box: SecretBox;
  /** Null where this process does not send (a redelivery is then picked up by the senders' poll). */
  queue: DeliveryQueue | null;
  allowPrivate: boolean;
  now?: () => Date;
}

export class WebhookService {
  private readonly now: () => Date;

  constructor(private readonly d: WebhookServiceDeps) {
    this.now = d.now ?? (() => new Date());
  }

  async create(principal: Principal, body: WebhookCreateBody): Promise<WebhookWithSecret> {
    try {
      checkWebhookUrl(body.url, this.d.allowPrivate);
    } catch (e) {
      if (e instanceof WebhookTargetError) throw new ApiError('VALIDATION_ERROR', e.message);
      throw e;
    }
    const { db, box } = this.d;
    const count = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', principal.accountId).executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_WEBHOOKS_PER_ACCOUNT) throw new ApiError('VALIDATION_ERROR', `an account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`);
    const secret = newWebhookSecret();
    const at = this.now().toISOString();
    const row = await db
      .insertInto('webhooks')
      .values({
        id: randomUUID(),
        account_id: principal.accountId,
        url: body.url,
        events: JSON.stringify(body.events),
        secret: box.seal(secret),
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...toView(row), secret };
  }

  async list(principal: Principal): Promise<WebhookList> {
    const rows = await this.d.db.selectFrom('webhooks').selectAll().where('account_id', '=', principal.accountId).orderBy('created_at', 'desc').execute();
    return { webhooks: rows.map(toView) };
  }

  async get(principal: Principal, id: string): Promise<Webhook> {
    return toView(await this.own(principal, id));
  }

  /** Deletes the webhook and its delivery log; deliveries in flight end as failed ("deleted"). */
  async delete(principal: Principal, id: string): Promise<void> {
    const hook = await this.own(principal, id);
    await this.d.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('webhook_deliveries').where('webhook_id', '=', hook.id).where((eb) => eb.or([eb('lease_owner', 'is', null), eb('status', '!=', 'pending')])).execute();
      await tx.deleteFrom('webhooks').where('id', '=', hook.id).execute();
    });
  }

  /**
   * A new secret, shown once. The old one goes on signing for 24 h (both signatures are sent),
   * so receivers can switch without missing a delivery. A second rotation within those 24 h
   * drops the oldest.
   */
  async rotate(principal: Principal, id: string): Promise<WebhookWithSecret> {
    const hook = await this.own(principal, id);
    const secret = newWebhookSecret();
    const now = this.now();
    const row = await this.d.db
      .updateTable('webhooks')
      .set({
        secret: this.d.box.seal(secret),
        previous_secret: hook.secret,
        previous_secret_expires_at: new Date(now.getTime() + RETRY_WINDOW_MS).toISOString(),
        updated_at: now.toISOString(),
      })
      .where('id', '=', hook.id)
      .where('secret', '=', hook.secret) // a concurrent rotation wins; this one is told to retry
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new ApiError('NOT_READY', 'the secret was rotated at the same moment by another request; fetch the webhook and rotate again if needed');
    return { ...toView(row), secret };
  }

  /** A disabled webhook receives events again (new events only; redeliver old ones by id). */
  async enable(principal: Principal, id: string): Promise<Webhook> {
    const hook = await this.own(principal, id);
    const row = await this.d.db
      .updateTable('webhooks')
      .set({ disabled_at: null, disabled_reason: null, failing_since: null, updated_at: this.now().toISOString() })
      .where('id', '=', hook.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toView(row);
  }

  async deliveries(principal: Principal, id: string, query: { limit?: string; status?: string }): Promise<DeliveryList> {
    const hook = await this.own(principal, id);
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new ApiError('VALIDATION_ERROR', 'limit must be an integer from 1 to 200');
    if (query.status !== undefined && !['pending', 'delivered', 'failed'].includes(query.status)) throw new ApiError('VALIDATION_ERROR', 'status must be pending, delivered or failed');
    let q = this.d.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('outbox as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.type as event_type')
      .where('d.webhook_id', '=', hook.id);
    if (query.status) q = q.where('d.status', '=', query.status);
    const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
    return { deliveries: rows.map(deliveryView) };
  }

  /** Sends one event again: the delivery becomes due now, with a new 24 h retry window. */
  async redeliver(principal: Principal, id: string, deliveryId: string): Promise<Delivery> {
    const hook = await this.own(principal, id);
    if (hook.disabled_at) throw new ApiError('NOT_READY', 'the webhook is disabled; enable it (POST /api/v1/webhooks/{webhook_id}/enable) before redelivering');
    const found = UUID.test(deliveryId)
      ? await this.d.db.selectFrom('webhook_deliveries').select('id').where('id', '=', deliveryId.toLowerCase()).where('webhook_id', '=', hook.id).executeTakeFirst()
      : undefined;
    if (!found) throw new ApiError('NOT_FOUND', UUID.test(deliveryId) ? `no delivery ${deliveryId.toLowerCase()} of this webhook` : 'no delivery with this delivery_id (delivery ids are UUIDs)');
    const now = this.now();
    const row = await redeliver(this.d.db, found.id, now);
    if (!row) throw new ApiError('NOT_READY', 'this delivery is being attempted right now; look at the log again in a few seconds');
    await this.d.queue?.schedule(row.id, Number(row.attempts), now);
    const event = await this.d.db.selectFrom('outbox').select('type').where('id', '=', row.event_id).executeTakeFirstOrThrow();
    return deliveryView({ ...row, event_type: event.type });
  }

  private async own(principal: Principal, id: string): Promise<WebhookRow> {
    const row = UUID.test(id)
      ? await this.d.db.selectFrom('webhooks').selectAll().where('id', '=', id.toLowerCase()).where('account_id', '=', principal.accountId).executeTakeFirst()
      : undefined;
    if (!row) throw new ApiError('NOT_FOUND', UUID.test(id) ? `no webhook ${id.toLowerCase()}` : 'no webhook with this webhook_id (webhook ids are UUIDs)');
    return row;
  }
}

function toView(row: WebhookRow): Webhook {
  return {
    webhook_id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    state: row.disabled_at ? 'disabled' : 'enabled',
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
  };
}

function deliveryView(row: DeliveryRow & { event_type: string }): Delivery {
  return {
    delivery_id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status as Delivery['status'],
    attempts: Number(row.attempts),
    last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
    last_error: row.last_error,
    last_response_body: row.last_response_body,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
    last_attempt_at: row.last_attempt_at,
    delivered_at: row.delivered_at,
  };
}
