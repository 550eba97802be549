/**
 * The dispatch loop of a queue whose store table is the queue (the embedded job queue, the
 * embedded webhook delivery queue): asks the table for due ids, hands each to the handler
 * with at most `concurrency` running, and asks again when woken — by the poll, by the owner
 * (a new row), or by finished handlers once no more than `refillBelow` are in flight. One
 * query runs at a time; a wake during a query runs one more after it.
 */
export interface TablePumpSource {
  /** Up to `limit` due ids, oldest first; ids already in flight may be among them. */
  due(limit: number): Promise<string[]>;
  /** A finished handler asks for more once no more than this many are in flight (default: concurrency − 1, i.e. always). */
  refillBelow?(concurrency: number): number;
}

export class TablePump {
  private handler: ((id: string) => Promise<void>) | null = null;
  private concurrency = 1;
  private refillBelow = 0;
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private dispatching = false;
  private again = false;
  private closed = false;
  private readonly idle = new Set<() => void>();
  private lastTick: number | null = null;

  constructor(
    private readonly source: TablePumpSource,
    private readonly pollMs: number,
  ) {}

  /** When the loop last asked the table (ms since epoch); null when not consuming. */
  get lastPollAt(): number | null {
    return this.handler && !this.closed ? this.lastTick : null;
  }

  consume(handler: (id: string) => Promise<void>, concurrency: number): void {
    this.handler = handler;
    this.concurrency = concurrency;
    this.refillBelow = this.source.refillBelow?.(concurrency) ?? concurrency - 1;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  wake(): void {
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
    const ids = await this.source.due(free + this.inFlight.size).catch(() => []);
    let started = 0;
    for (const id of ids) {
      if (this.closed || this.inFlight.size >= this.concurrency) break;
      if (this.inFlight.has(id)) continue;
      this.inFlight.add(id);
      started++;
      void this.handler!(id)
        .catch(() => {})
        .finally(() => {
          this.inFlight.delete(id);
          if (this.inFlight.size === 0) for (const resolve of this.idle) resolve();
          if (this.inFlight.size <= this.refillBelow) this.wake();
        });
    }
    // A full batch: more may be due right now.
    if (started > 0 && started === free) this.again = true;
  }

  /** Stops asking for ids and waits for the running handlers. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.inFlight.size === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}
