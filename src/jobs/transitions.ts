/**
 * Every job state change, one module each under `transitions/` (the layout of Graphile
 * Worker's `src/sql/`): each is one guarded statement (`UPDATE … WHERE id = ? AND status IN
 * (from)`) in one transaction with its credit movements. A transition that finds the job
 * in another state changes nothing and returns null: callers treat that as "someone else
 * already did it". The same statements run on SQLite and PostgreSQL.
 */
export { createJob, type NewJob } from './transitions/createJob.ts';
export { claimJob, claimNextJob } from './transitions/claimJob.ts';
export { heartbeat } from './transitions/heartbeat.ts';
export { completeJob, type CompletionFacts } from './transitions/completeJob.ts';
export { failJob, type FailGuard } from './transitions/failJob.ts';
export { cancelJob, CANCELED_MESSAGE } from './transitions/cancelJob.ts';
export { requeueJob } from './transitions/requeueJob.ts';
export { recoverInterruptedJobs } from './transitions/recoverInterruptedJobs.ts';
export { returnJob } from './transitions/returnJob.ts';
export { expireResult, resultsDueToExpire } from './transitions/expireResult.ts';
