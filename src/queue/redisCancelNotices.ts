/**
 * Cancel notices over Redis pub/sub (REDIS_URL): an API process publishes a canceled job's id
 * on one channel per deployment; every worker process subscribed to it aborts the job if it
 * runs it. Pub/sub keeps nothing for a worker that is not connected at that moment — the
 * worker's store check (src/worker/jobWatch.ts) covers that.
 */
import { Redis } from 'ioredis';
import type { CancelNotices } from './cancelNotices.ts';

export class RedisCancelNotices implements CancelNotices {
  private publisher: Redis | null = null;
  private subscriber: Redis | null = null;
  private readonly handlers = new Set<(jobId: string) => void>();

  /** `channel`: deployments sharing a Redis use different ones (the queue name is in it). */
  constructor(
    private readonly redisUrl: string,
    private readonly channel: string,
  ) {}

  async publish(jobId: string): Promise<void> {
    if (!this.publisher) {
      // Fail fast: a lost notice only delays the abort to the worker's next store check.
      this.publisher = new Redis(this.redisUrl, { maxRetriesPerRequest: 1 });
      this.publisher.on('error', () => {});
    }
    await this.publisher.publish(this.channel, jobId).catch(() => {});
  }

  subscribe(onCancel: (jobId: string) => void): () => void {
    if (!this.subscriber) {
      const sub = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
      sub.on('error', () => {});
      sub.on('message', (channel: string, jobId: string) => {
        if (channel === this.channel) for (const h of this.handlers) h(jobId);
      });
      // ioredis subscribes again by itself after a reconnect.
      void sub.subscribe(this.channel).catch(() => {});
      this.subscriber = sub;
    }
    this.handlers.add(onCancel);
    return () => this.handlers.delete(onCancel);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    for (const client of [this.publisher, this.subscriber]) await client?.quit().catch(() => client.disconnect());
    this.publisher = this.subscriber = null;
  }
}
