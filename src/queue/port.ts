/**
 * The queue hands job ids to workers. It never decides a job's state: the worker claims
 * the job with a guarded UPDATE, so a job delivered twice still runs once.
 */
export type JobHandler = (jobId: string) => Promise<void>;

export interface JobQueue {
  /**
   * Tell workers a job is waiting. Durable: the job row is already committed. `attempt` is
   * the number of times the job was claimed before (0 at submission): a job put back after
   * its worker died is a new delivery, while the dead worker's message may still be held.
   */
  enqueue(jobId: string, attempt?: number): Promise<void>;
  /** Start delivering job ids to `handler`, at most `concurrency` at a time. */
  consume(handler: JobHandler, concurrency: number): void;
  /** When this process last asked for work (epoch ms; the readiness probe), null when it does not consume. */
  readonly lastPollAt: number | null;
  close(): Promise<void>;
}
