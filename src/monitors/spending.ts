/**
 * What a monitor spent in a month: charged for its completed runs, reserved for those still
 * pending or processing (a reservation is the most a run can cost), nothing for failed ones.
 * Read from the jobs themselves, so it cannot drift from the ledger.
 */
import { sql } from 'kysely';
import type { Db } from '../store/index.ts';

export async function monthSpentMicros(db: Db, monitorId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select(
      sql<number>`coalesce(sum(case when status = 'completed' then credits_used_micros when status in ('pending', 'processing') then credits_reserved_micros else 0 end), 0)`.as('spent'),
    )
    .where('monitor_id', '=', monitorId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.spent);
}
