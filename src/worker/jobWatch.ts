/**
 * Tells a worker, within one interval, that a job it is running is no longer its own:
 * canceled by its client (through any API process) or taken by lease recovery — at once when
 * a cancel notice comes (canceled()), else at the next check. The store is
 * the one place every process sees, so the watch reads it: one query per interval for all the
 * jobs this runner holds, and none while it holds none — the load stays bounded however many
 * jobs run, and nothing here depends on the API and the worker sharing a process.
 */
import type { Db } from '../store/index.ts';

/** Why a job was taken away: the client canceled it, or someone else holds it now. */
export type JobLoss = 'canceled' | 'lost';

export class JobWatch {
  private readonly watched = new Map<string, (loss: JobLoss) => void>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly db: Db,
    private readonly workerId: string,
    private readonly intervalMs: number,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  /** Calls `onLoss` once when `jobId` stops being this worker's; the returned function stops watching. */
  watch(jobId: string, onLoss: (loss: JobLoss) => void): () => void {
    this.watched.set(jobId, onLoss);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.intervalMs);
      this.timer.unref();
    }
    return () => this.unwatch(jobId);
  }

  private unwatch(jobId: string): void {
    this.watched.delete(jobId);
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /**
   * A cancel notice (src/queue/cancelNotices.ts) for `jobId`: sent only after the cancel
   * committed, so a watched job is aborted at once, without waiting for the next check.
   */
  canceled(jobId: string): void {
    const onLoss = this.watched.get(jobId);
    if (!onLoss) return;
    this.unwatch(jobId);
    onLoss('canceled');
  }

  /** One read of every watched job; a check still running when the next is due is not doubled. */
  async check(): Promise<void> {
    if (this.checking || this.watched.size === 0) return;
    this.checking = true;
    try {
      const rows = await this.db
        .selectFrom('jobs')
        .select(['id', 'status', 'error_code', 'lease_owner'])
        .where('id', 'in', [...this.watched.keys()])
        .execute();
      for (const row of rows) {
        if (row.status === 'processing' && row.lease_owner === this.workerId) continue;
        const onLoss = this.watched.get(row.id);
        this.unwatch(row.id);
        onLoss?.(row.status === 'failed' && row.error_code === 'CANCELED' ? 'canceled' : 'lost');
      }
    } catch (e) {
      this.onError(e);
    } finally {
      this.checking = false;
    }
  }
}

/** Whether a job is running (on any worker): a tile of a job that is not is not started (queue/tiles.ts). */
export async function jobIsProcessing(db: Db, jobId: string): Promise<boolean> {
  const row = await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst();
  return row?.status === 'processing';
}
