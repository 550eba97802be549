/**
 * The embedded queue: durable because the store is the queue. Pending jobs are read from
 * the jobs table (oldest first), so jobs submitted while no worker ran, or requeued after a
 * crash, are picked up without any in-memory state surviving. `enqueue` only wakes the
 * dispatcher early; a slow poll covers jobs written by another process (the CLI).
 */
import type { Db } from '../store/index.ts';
import type { JobHandler, JobQueue } from './port.ts';

export class StoreBackedQueue implements JobQueue {
  private handler: JobHandler | null = null;
  private concurrency = 1;
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private dispatching = false;
  private again = false;
  private closed = false;
  private readonly idle = new Set<() => void>();
  private lastTick: number | null = null;

  constructor(
    private readonly db: Db,
    private readonly pollMs = 1000,
  ) {}

  /** When the dispatcher last ran (ms since epoch); null when not consuming. Read by /readyz. */
  get lastPollAt(): number | null {
    return this.handler && !this.closed ? this.lastTick : null;
  }

  async enqueue(_jobId: string): Promise<void> {
    this.wake();
  }

  consume(handler: JobHandler, concurrency: number): void {
    this.handler = handler;
    this.concurrency = concurrency;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  private wake(): void {
    if (!this.handler || this.closed) return;
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = true;
    void this.dispatch().finally(() => {
      this.dispatching = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async dispatch(): Promise<void> {
    this.lastTick = Date.now();
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .limit(free + this.inFlight.size)
      .execute()
      .catch(() => []);
    for (const { id } of rows) {
      if (this.closed || this.inFlight.size >= this.concurrency) break;
      if (this.inFlight.has(id)) continue;
      this.inFlight.add(id);
      void this.handler!(id)
        .catch(() => {})
        .finally(() => {
          this.inFlight.delete(id);
          if (this.inFlight.size === 0) for (const resolve of this.idle) resolve();
          this.wake();
        });
    }
  }

  /** Stops taking new jobs and waits for running ones to finish. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.inFlight.size === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}
