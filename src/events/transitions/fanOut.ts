import { randomUUID } from 'node:crypto';
import type { Db, OutboxRow } from '../../store/index.ts';
import { RETRY_WINDOW_MS } from '../backoff.ts';

type OutboxEvent = Pick<OutboxRow, 'id' | 'account_id' | 'type' | 'created_at'>;

/**
 * outbox events → one pending delivery per enabled webhook of each event's account that is
 * subscribed to its type, then the events are marked fanned out; one transaction for the
 * batch. The (webhook, event) unique key makes a repeat — another process fanning out the
 * same events — insert nothing. Returns the ids of the deliveries this call created.
 */
export async function fanOutEvents(db: Db, events: readonly OutboxEvent[], now: Date): Promise<string[]> {
  if (events.length === 0) return [];
  return db.transaction().execute(async (tx) => {
    const accounts = [...new Set(events.map((e) => e.account_id))];
    const hooks = await tx.selectFrom('webhooks').select(['id', 'account_id', 'events']).where('account_id', 'in', accounts).where('disabled_at', 'is', null).execute();
    const byAccount = new Map<string, { id: string; events: string[] }[]>();
    for (const h of hooks) {
      const list = byAccount.get(h.account_id) ?? [];
      list.push({ id: h.id, events: JSON.parse(h.events) as string[] });
      byAccount.set(h.account_id, list);
    }
    const at = now.toISOString();
    const rows = events.flatMap((e) =>
      (byAccount.get(e.account_id) ?? [])
        .filter((h) => h.events.includes(e.type))
        .map((h) => ({
          id: randomUUID(),
          webhook_id: h.id,
          event_id: e.id,
          account_id: e.account_id,
          status: 'pending',
          next_attempt_at: at,
          retry_until: new Date(Date.parse(e.created_at) + RETRY_WINDOW_MS).toISOString(),
          created_at: at,
          updated_at: at,
        })),
    );
    const created: string[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const inserted = await tx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .returning('id')
        .execute();
      created.push(...inserted.map((r) => r.id));
    }
    const ids = events.map((e) => e.id);
    for (let i = 0; i < ids.length; i += 500) {
      await tx.updateTable('outbox').set({ fanned_out_at: at }).where('id', 'in', ids.slice(i, i + 500)).where('fanned_out_at', 'is', null).execute();
    }
    return created;
  });
}

/** One event (see fanOutEvents). */
export function fanOutEvent(db: Db, event: OutboxEvent, now: Date): Promise<string[]> {
  return fanOutEvents(db, [event], now);
}
