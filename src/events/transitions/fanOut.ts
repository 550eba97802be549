import { randomUUID } from 'node:crypto';
import type { Db, OutboxRow } from '../../store/index.ts';
import { RETRY_WINDOW_MS } from '../backoff.ts';

/**
 * outbox event → one pending delivery per enabled webhook of its account subscribed to its
 * type, then marks the event fanned out; one transaction. The (webhook, event) unique key
 * makes a repeat — another process fanning out the same event — insert nothing. Returns the
 * ids of the deliveries this call created.
 */
export async function fanOutEvent(db: Db, event: Pick<OutboxRow, 'id' | 'account_id' | 'type' | 'created_at'>, now: Date): Promise<string[]> {
  return db.transaction().execute(async (tx) => {
    const hooks = await tx.selectFrom('webhooks').select(['id', 'events']).where('account_id', '=', event.account_id).where('disabled_at', 'is', null).execute();
    const at = now.toISOString();
    const created: string[] = [];
    for (const hook of hooks) {
      if (!(JSON.parse(hook.events) as string[]).includes(event.type)) continue;
      const row = await tx
        .insertInto('webhook_deliveries')
        .values({
          id: randomUUID(),
          webhook_id: hook.id,
          event_id: event.id,
          account_id: event.account_id,
          status: 'pending',
          next_attempt_at: at,
          retry_until: new Date(Date.parse(event.created_at) + RETRY_WINDOW_MS).toISOString(),
          created_at: at,
          updated_at: at,
        })
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (row) created.push(row.id);
    }
    await tx.updateTable('outbox').set({ fanned_out_at: at }).where('id', '=', event.id).where('fanned_out_at', 'is', null).execute();
    return created;
  });
}
