import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * Job event streams (issue 21 §3) and spending caps.
 *
 * `job_events` is the log the SSE stream (GET /jobs/{id}/events) reads: one row per change
 * of a job's status or progress, whatever process made it. Its id is the stream's event id:
 * it increases, and for one job it increases in commit order (every change of a job updates
 * the job's row, so a second writer waits for the first to commit before its trigger takes
 * the next id) — a reader that has seen id N of a job never later finds a smaller one.
 *
 * The rows are written by a trigger on `jobs`, not by the transitions: every status and
 * progress change (the nine transitions, the heartbeat's progress, transitions written
 * later) lands in the log in the same statement, and none can forget to.
 *
 * `jobs.max_credits_micros`: the submission's `max_credits`, the most the job may cost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db).name === 'postgres';
  await db.schema
    .createTable('job_events')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('job_id', 'text', (c) => c.notNull())
    // status | progress
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_events_job').on('job_events').columns(['job_id', 'id']).execute();

  if (postgres) {
    await sql`
      CREATE FUNCTION sarwatch_job_event() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status OR OLD.progress IS DISTINCT FROM NEW.progress THEN
          INSERT INTO job_events (job_id, kind, status, progress, created_at)
          VALUES (
            NEW.id,
            CASE WHEN TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN 'status' ELSE 'progress' END,
            NEW.status,
            NEW.progress,
            to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          );
        END IF;
        RETURN NULL;
      END
      $$ LANGUAGE plpgsql`.execute(db);
    await sql`CREATE TRIGGER jobs_events AFTER INSERT OR UPDATE OF status, progress ON jobs FOR EACH ROW EXECUTE FUNCTION sarwatch_job_event()`.execute(db);
  } else {
    await sql`
      CREATE TRIGGER jobs_events_insert AFTER INSERT ON jobs
      BEGIN
        INSERT INTO job_events (job_id, kind, status, progress, created_at)
        VALUES (NEW.id, 'status', NEW.status, NEW.progress, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
      END`.execute(db);
    await sql`
      CREATE TRIGGER jobs_events_update AFTER UPDATE OF status, progress ON jobs
      WHEN OLD.status IS NOT NEW.status OR OLD.progress IS NOT NEW.progress
      BEGIN
        INSERT INTO job_events (job_id, kind, status, progress, created_at)
        VALUES (NEW.id, CASE WHEN OLD.status IS NOT NEW.status THEN 'status' ELSE 'progress' END, NEW.status, NEW.progress, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
      END`.execute(db);
  }

  await db.schema.alterTable('jobs').addColumn('max_credits_micros', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db).name === 'postgres';
  await db.schema.alterTable('jobs').dropColumn('max_credits_micros').execute();
  if (postgres) {
    await sql`DROP TRIGGER jobs_events ON jobs`.execute(db);
    await sql`DROP FUNCTION sarwatch_job_event()`.execute(db);
  } else {
    await sql`DROP TRIGGER jobs_events_update`.execute(db);
    await sql`DROP TRIGGER jobs_events_insert`.execute(db);
  }
  await db.schema.dropTable('job_events').execute();
}
