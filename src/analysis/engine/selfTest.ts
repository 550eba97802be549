/** A tiny task used by the engine's tests and `sarwatch` health checks: proves workers load our modules. */
import { threadId, type MessagePort } from 'node:worker_threads';

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
