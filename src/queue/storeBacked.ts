/**
 * The embedded queue: durable because the store is the queue. Pending jobs are read from
 * the jobs table (oldest first), so jobs submitted while no worker ran, or requeued after a
 * crash, are picked up without any in-memory state surviving. `enqueue` only wakes the
 * dispatcher early; a slow poll covers jobs written by another process (the CLI).
 */
import type { Db } from '../store/index.ts';
import type { JobHandler, JobQueue } from './port.ts';
import { TablePump } from './tablePump.ts';

export class StoreBackedQueue implements JobQueue {
  private readonly pump: TablePump;

  constructor(db: Db, pollMs = 1000) {
    this.pump = new TablePump(
      {
        due: async (limit) => {
          const rows = await db.selectFrom('jobs').select('id').where('status', '=', 'pending').orderBy('created_at').orderBy('id').limit(limit).execute();
          return rows.map((r) => r.id);
        },
      },
      pollMs,
    );
  }

  /** When the dispatcher last ran (ms since epoch); null when not consuming. Read by /readyz. */
  get lastPollAt(): number | null {
    return this.pump.lastPollAt;
  }

  async enqueue(_jobId: string): Promise<void> {
    this.pump.wake();
  }

  consume(handler: JobHandler, concurrency: number): void {
    this.pump.consume(handler, concurrency);
  }

  /** Stops taking new jobs and waits for running ones to finish. */
  close(): Promise<void> {
    return this.pump.close();
  }
}
