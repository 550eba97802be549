import type { Kysely } from 'kysely';

/**
 * Monitors and webhooks (issue 21 §1, §2).
 *
 * - `jobs.monitor_id`: the monitor a job is a run of (null for submitted jobs).
 * - `outbox`: events (job.completed, job.failed, monitor.triggered, monitor.suspended),
 *   written in the same transaction as the state change that causes them; `fanned_out_at`
 *   is set once a delivery row exists for every webhook subscribed at that moment.
 * - `webhooks`, `webhook_deliveries`: one delivery per (webhook, event) — the unique key makes
 *   the fan-out safe to repeat in any number of processes.
 * - `monitors`, `monitor_runs`: one run per (monitor, scene) — the primary key, not a
 *   check-then-insert, is what keeps a scene from running twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('monitor_id', 'text').execute();
  await db.schema.createIndex('jobs_monitor_created').on('jobs').columns(['monitor_id', 'created_at']).where((eb) => eb('monitor_id', 'is not', null)).execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('fanned_out_at', 'text')
    .execute();
  await db.schema.createIndex('outbox_unfanned').on('outbox').columns(['fanned_out_at', 'created_at']).execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_account').on('webhooks').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('retry_until', 'text', (c) => c.notNull())
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_response_body', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_unique').on('webhook_deliveries').columns(['webhook_id', 'event_id']).unique().execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'created_at']).execute();

  await db.schema
    .createTable('monitors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('family', 'text', (c) => c.notNull())
    .addColumn('polygon', 'text')
    .addColumn('polygon_id', 'text')
    .addColumn('orbit_direction', 'text')
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('every_days', 'integer')
    .addColumn('condition', 'text', (c) => c.notNull())
    .addColumn('max_credits_per_month_micros', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('suspended_reason', 'text')
    .addColumn('suspended_message', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('min_lon', 'double precision', (c) => c.notNull())
    .addColumn('min_lat', 'double precision', (c) => c.notNull())
    .addColumn('max_lon', 'double precision', (c) => c.notNull())
    .addColumn('max_lat', 'double precision', (c) => c.notNull())
    .addColumn('last_scene_id', 'text')
    .addColumn('last_scene_time', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitors_account').on('monitors').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('monitors_state').on('monitors').columns(['state']).execute();

  await db.schema
    .createTable('monitor_runs')
    .addColumn('monitor_id', 'text', (c) => c.notNull())
    .addColumn('scene_id', 'text', (c) => c.notNull())
    .addColumn('scene_time', 'text', (c) => c.notNull())
    .addColumn('orbit_direction', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    // queued → submitted → triggered | not_triggered | failed; queued → skipped
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('summary', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('monitor_runs_pk', ['monitor_id', 'scene_id'])
    .execute();
  await db.schema.createIndex('monitor_runs_status').on('monitor_runs').columns(['status', 'updated_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['monitor_runs', 'monitors', 'webhook_deliveries', 'webhooks', 'outbox']) await db.schema.dropTable(t).execute();
  await db.schema.dropIndex('jobs_monitor_created').execute();
  await db.schema.alterTable('jobs').dropColumn('monitor_id').execute();
}
