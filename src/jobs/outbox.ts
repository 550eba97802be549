/**
 * The event outbox (issue 21): an event is a row written in the same transaction as the
 * state change that causes it, so it exists exactly when the change does — never lost to a
 * crash between the two, never sent for a change that rolled back. Delivery (webhooks,
 * src/events/) reads the outbox afterwards; nothing here knows who listens.
 */
import { randomUUID } from 'node:crypto';
import type { Db, JobRow } from '../store/index.ts';
import { fromMicros } from './credits.ts';
import { resultPathOf } from './views.ts';
import { isoNow } from '../time.ts';

import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks.ts';

export type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A new event id: the stable `webhook-id` of every delivery and retry of the event. */
export function newEventId(): string {
  return `evt_${randomUUID().replace(/-/g, '')}`;
}

/** Writes one event; `tx` is the transaction of the change it reports. Returns its id. */
export async function recordEvent(tx: Db, e: { accountId: string; type: EventType; data: Record<string, unknown>; now?: string }): Promise<string> {
  const id = newEventId();
  await tx
    .insertInto('outbox')
    .values({ id, account_id: e.accountId, type: e.type, payload: JSON.stringify(e.data), created_at: e.now ?? isoNow(), fanned_out_at: null })
    .execute();
  return id;
}

/** What a job event says about the job: the fields of a list item a receiver acts on. */
export function jobEventData(row: JobRow): Record<string, unknown> {
  return {
    job_id: row.id,
    endpoint_id: row.endpoint_id,
    status: row.status,
    created_at: row.created_at,
    completed_at: row.completed_at,
    result_path: resultPathOf(row),
    area_sqkm: row.area_sqkm === null ? null : Number(row.area_sqkm),
    credits_used: row.credits_used_micros === null ? null : fromMicros(row.credits_used_micros),
    error_code: row.error_code,
    error_message: row.error_message,
    monitor_id: row.monitor_id ?? null,
  };
}

/**
 * The one hook of the terminal transitions: a job that just became completed or failed
 * (completeJob, failJob — and any other transition into a terminal state, such as a cancel)
 * records job.completed or job.failed in the same transaction.
 */
export async function recordTerminalEvent(tx: Db, row: JobRow): Promise<void> {
  if (row.status !== 'completed' && row.status !== 'failed') return;
  await recordEvent(tx, { accountId: row.account_id, type: row.status === 'completed' ? 'job.completed' : 'job.failed', data: jobEventData(row), now: row.completed_at ?? undefined });
}
