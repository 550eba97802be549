/** Tiny tasks for the tests of the pools: prove threads load our modules, and give a task that only an abort ends. */
import { threadId, type MessagePort } from 'node:worker_threads';
import { defineThreadTasks } from '../../threads/task.ts';
import { ImageryError } from '../../imagery/errors.ts';
import { JobFailure } from '../../contract/errors.ts';
import { threadCpuSeconds } from './cpu.ts';

export function sumOnWorker(input: { data: Float32Array }): { threadId: number; sum: number } {
  let sum = 0;
  for (const v of input.data) sum += v;
  return { threadId, sum };
}

/**
 * Holds its worker thread until `gate[0]` becomes non-zero, after posting on `started`. Only
 * terminating the thread ends it sooner: the tests of aborting a running task use it.
 */
export function holdUntilReleased(input: { gate: Int32Array; started: MessagePort }): { threadId: number } {
  input.started.postMessage('running');
  Atomics.wait(input.gate, 0, 0);
  return { threadId };
}

/** Throws the project's error of `kind` on the thread: the tests of errors crossing back use it. */
export function failOnWorker(input: { kind: 'imagery' | 'job' | 'plain'; message: string }): never {
  if (input.kind === 'imagery') throw new ImageryError('MEASUREMENT_UNAVAILABLE', input.message);
  if (input.kind === 'job') throw new JobFailure('NO_VALID_DATA', input.message);
  throw new TypeError(input.message);
}

/**
 * Keeps its thread busy for `ms` of wall time, or, given `cpuSeconds`, until the thread itself
 * has used that much CPU (its /proc/thread-self count, where there is one): the tests of the
 * analysis CPU account (cpu.ts) use it. A fixed wall time gets a thread little CPU on a loaded
 * machine; a CPU amount is the same however loaded the machine is.
 */
export function spinOnWorker(input: { ms?: number; cpuSeconds?: number }): { threadId: number; spins: number } {
  let spins = 0;
  const cpu0 = input.cpuSeconds === undefined ? null : threadCpuSeconds();
  if (cpu0 !== null) {
    while (threadCpuSeconds()! - cpu0 < input.cpuSeconds!) spins++;
    return { threadId, spins };
  }
  const end = performance.now() + (input.ms ?? 0);
  while (performance.now() < end) spins++;
  return { threadId, spins };
}

export const threadTasks = defineThreadTasks(import.meta.url, { sumOnWorker, holdUntilReleased, failOnWorker, spinOnWorker });
