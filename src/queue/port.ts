/**
 * The queue hands job ids to workers. It never decides a job's state: the worker claims
 * the job with a guarded UPDATE, so a job delivered twice still runs once.
 */
export type JobHandler = (jobId: string) => Promise<void>;

export interface JobQueue {
  /** Tell workers a new job is waiting. Durable: the job row is already committed. */
  enqueue(jobId: string): Promise<void>;
  /** Start delivering job ids to `handler`, at most `concurrency` at a time. */
  consume(handler: JobHandler, concurrency: number): void;
  close(): Promise<void>;
}
