/**
 * The job state machine, in one place. Every status change in the code base goes through
 * `transitions.ts`, whose guarded UPDATEs use the `from` lists below, so an illegal change
 * (completing a failed job, failing a completed one, charging twice) cannot happen even
 * when two workers race.
 */
import type { JobStatus } from '../contract/enums.ts';

export const TRANSITIONS = {
  /** A worker takes a queued job. */
  claim: { from: ['pending'], to: 'processing' },
  /** The analysis finished and the result object is written. */
  complete: { from: ['processing'], to: 'completed' },
  /** Any job-time failure; also a job failed before it was claimed (e.g. shutdown). */
  fail: { from: ['pending', 'processing'], to: 'failed' },
  /** The client cancels a job that has not ended (failed with CANCELED, uncharged). */
  cancel: { from: ['pending', 'processing'], to: 'failed' },
  /** A job whose lease expired (crash recovery) or whose worker shuts down goes back to the queue. */
  requeue: { from: ['processing'], to: 'pending' },
  /** A completed job's result retention elapsed: the status stays, the result is marked deleted. */
  expire: { from: ['completed'], to: 'completed' },
} as const satisfies Record<string, { from: readonly JobStatus[]; to: JobStatus }>;

export type TransitionName = keyof typeof TRANSITIONS;

export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed'];

export function canTransition(name: TransitionName, from: JobStatus): boolean {
  return (TRANSITIONS[name].from as readonly JobStatus[]).includes(from);
}
