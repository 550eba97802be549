/** A tiny task used by the engine's tests and `sarwatch` health checks: proves workers load our modules. */
import { threadId } from 'node:worker_threads';

export function sumOnWorker(input: { data: Float32Array }): { threadId: number; sum: number } {
  let sum = 0;
  for (const v of input.data) sum += v;
  return { threadId, sum };
}
