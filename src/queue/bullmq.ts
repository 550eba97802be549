/**
 * The scaled-out queue: BullMQ on Redis (`REDIS_URL`). API processes enqueue a job by its
 * id — BullMQ's custom jobId makes a second enqueue of a job still queued a no-op — and
 * `sarwatch worker` processes consume with the configured concurrency. The queue carries
 * ids only; the store decides (a delivery whose claim fails does nothing), so a message
 * delivered twice, or redelivered by BullMQ's stalled-job check after a worker died, runs
 * the job at most once at a time. A finished message is removed, so the reconciler can
 * enqueue the same id again when recovery puts the job back to pending.
 */
import { Queue, Worker } from 'bullmq';
import type { JobHandler, JobQueue } from './port.ts';

/**
 * One message per job and attempt: enqueueing the same attempt twice is a no-op, while a
 * job requeued after its worker died gets a new message even if the dead worker's message
 * is still held as active until BullMQ's stalled check.
 */
export function deliveryId(jobId: string, attempt: number): string {
  return `${jobId}.${attempt}`;
}

export interface BullmqQueueOptions {
  redisUrl: string;
  /** Redis keys are `bull:<name>:…`; deployments sharing a Redis use different names. */
  name?: string;
}

export class BullmqQueue implements JobQueue {
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly connection: { url: string; maxRetriesPerRequest: null };
  readonly name: string;

  constructor(opts: BullmqQueueOptions) {
    this.name = opts.name ?? 'sarwatch-jobs';
    // maxRetriesPerRequest null: a worker's blocking reads must wait out a Redis restart.
    this.connection = { url: opts.redisUrl, maxRetriesPerRequest: null };
    this.queue = new Queue(this.name, { connection: this.connection });
    // Without a listener BullMQ prints every failed reconnect to stderr, outside the log. A
    // lost Redis is retried by ioredis and reported by the readiness probe (`queue`).
    this.queue.on('error', () => {});
  }

  async enqueue(jobId: string, attempt = 0): Promise<void> {
    await this.queue.add('run', { jobId }, { jobId: deliveryId(jobId, attempt), removeOnComplete: true, removeOnFail: true });
  }

  /** Delivery ids (job id and attempt) queued or running in the queue: the reconciler skips these. */
  async queuedDeliveries(): Promise<Set<string>> {
    const jobs = await this.queue.getJobs(['waiting', 'active', 'delayed', 'prioritized'], 0, -1);
    return new Set(jobs.filter((j) => j?.id).map((j) => j.id!));
  }

  /** Messages waiting to be taken (the queue depth). */
  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  consume(handler: JobHandler, concurrency: number): void {
    if (this.worker) throw new Error('this queue is already consuming');
    this.worker = new Worker<{ jobId: string }>(this.name, (job) => handler(job.data.jobId), { connection: this.connection, concurrency });
    // A lost Redis connection is retried by ioredis; the error event only needs a listener.
    this.worker.on('error', () => {});
  }

  /**
   * For the readiness probe: BullMQ's worker blocks on Redis rather than polling, so "now"
   * while it runs, null when this process does not consume.
   */
  get lastPollAt(): number | null {
    return this.worker?.isRunning() ? Date.now() : null;
  }

  /**
   * Redis answers a round trip (the readiness probe of the scaled-out queue). While Redis is
   * down this waits, like every command here; the probe's own time limit turns that into a failure.
   */
  async ping(): Promise<void> {
    await this.queue.getJobCounts('waiting');
  }

  /** Stops taking messages and waits for the running handlers. */
  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }

  /** Stops at once, leaving running messages to BullMQ's stalled-job check (tests of a dying worker). */
  async abandon(): Promise<void> {
    await this.worker?.close(true);
    await this.queue.close();
  }
}
