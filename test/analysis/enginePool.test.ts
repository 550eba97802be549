/**
 * Issue 4, Engine: tile tasks run on worker threads (piscina) with transferred buffers.
 */
import { once } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool, runTileTask } from '../../src/analysis/engine/pool.ts';

/** A task that holds a pool thread until `gate[0]` is set; `running` settles once it runs. */
function holdingTask(signal?: AbortSignal) {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const running = once(port1, 'message');
  const task = runTileTask({ name: 'holdUntilReleased', input: { gate, started: port2 } }, [port2], signal);
  void task.catch(() => {}).finally(() => port1.close());
  return { gate, running, task };
}

afterAll(() => closeAnalysisPool());

describe('analysis worker pool', () => {
  it('runs an analysis module function on a worker thread and moves typed arrays without copying', async () => {
    const data = new Float32Array([1, 2, 3, 4]);
    const out = await runTileTask(
      { name: 'sumOnWorker', input: { data } },
      [data.buffer],
    );
    expect(out.sum).toBe(10);
    expect(out.threadId).toBeGreaterThan(0); // not the main thread
    expect(data.byteLength).toBe(0); // the buffer was transferred
  });

  it('refuses a task that is not in the task table (no module path is ever loaded from a task)', async () => {
    const forged = { name: '../../etc/passwd', input: null } as unknown as Parameters<typeof runTileTask>[0];
    await expect(runTileTask(forged)).rejects.toThrow(/unknown tile task/);
  });

  it('issue 10.8: aborting the signal ends a task that holds its thread, and the pool keeps working', async () => {
    const abort = new AbortController();
    const held = holdingTask(abort.signal);
    await held.running;
    abort.abort();
    // The gate is never opened: only terminating the thread ends the task.
    await expect(held.task).rejects.toThrow(/aborted/);
    expect(Atomics.load(held.gate, 0)).toBe(0);
    const data = new Float32Array([2, 3]);
    const out = await runTileTask({ name: 'sumOnWorker', input: { data } });
    expect(out.sum).toBe(5);
  });

  it('issue 10.8: the held task is real work — opened, it completes on a worker thread', async () => {
    const held = holdingTask();
    await held.running;
    Atomics.store(held.gate, 0, 1);
    Atomics.notify(held.gate, 0);
    expect((await held.task).threadId).toBeGreaterThan(0);
  });

  it('issue 10.8: a task whose signal is already aborted never runs', async () => {
    const abort = new AbortController();
    abort.abort();
    const held = holdingTask(abort.signal);
    await expect(held.task).rejects.toThrow(/aborted/);
  });
});

