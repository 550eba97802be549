/**
 * Issue 4, Engine: tile tasks run on worker threads (piscina) with transferred buffers.
 */
import { once } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool, runTileCall, runTileTask } from '../../src/analysis/engine/pool.ts';
import { threadTasks } from '../../src/analysis/engine/selfTest.ts';
import { defineThreadTasks, threadCall } from '../../src/threads/task.ts';
import { ThreadPool } from '../../src/threads/pool.ts';
import { ImageryError } from '../../src/imagery/errors.ts';
import { JobFailure } from '../../src/contract/errors.ts';

/** A task that holds a pool thread until `gate[0]` is set; `running` settles once it runs. */
function holdingTask(signal?: AbortSignal) {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const running = once(port1, 'message');
  const task = runTileTask({ task: threadTasks.holdUntilReleased, input: { gate, started: port2 } }, [port2], signal);
  void task.catch(() => {}).finally(() => port1.close());
  return { gate, running, task };
}

afterAll(() => closeAnalysisPool());

describe('analysis worker pool', () => {
  it('runs an analysis module function on a worker thread and moves typed arrays without copying', async () => {
    const data = new Float32Array([1, 2, 3, 4]);
    const out = await runTileTask(
      { task: threadTasks.sumOnWorker, input: { data } },
      [data.buffer],
    );
    expect(out.sum).toBe(10);
    expect(out.threadId).toBeGreaterThan(0); // not the main thread
    expect(data.byteLength).toBe(0); // the buffer was transferred
  });

  it('an error thrown on a thread reaches the caller with its class and code (structured cloning alone keeps only the message)', async () => {
    const imagery = await runTileTask({ task: threadTasks.failOnWorker, input: { kind: 'imagery', message: 'no VV band' } }).catch((e: unknown) => e);
    expect(imagery).toBeInstanceOf(ImageryError);
    expect(imagery).toMatchObject({ code: 'MEASUREMENT_UNAVAILABLE', message: 'no VV band' });
    const job = await runTileCall({ module: 'analysis/engine/selfTest.ts', name: 'failOnWorker', input: { kind: 'job', message: 'all nodata' } }).catch((e: unknown) => e);
    expect(job).toBeInstanceOf(JobFailure);
    expect(job).toMatchObject({ code: 'NO_VALID_DATA', message: 'all nodata' });
    const plain = await runTileTask({ task: threadTasks.failOnWorker, input: { kind: 'plain', message: 'bad input' } }).catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(Error);
    expect(plain).not.toBeInstanceOf(ImageryError);
    expect((plain as Error).message).toBe('bad input');
    expect((plain as Error).stack).toContain('failOnWorker');
  });

  it('runs a call that came as data: the module under src/ and the name in its threadTasks', async () => {
    const out = await runTileCall({ module: 'analysis/engine/selfTest.ts', name: 'sumOnWorker', input: { data: new Float32Array([5, 6]) } });
    expect(out).toMatchObject({ sum: 11 });
  });

  it('refuses a call of a module outside src/, or of a function its module does not export as a thread task', async () => {
    // Outside src/ (or no module path at all): nothing is loaded.
    for (const module of ['../../etc/passwd', '../test/helpers/samples.ts', '/etc/passwd', 'file:///etc/passwd', 'analysis/../../test/helpers/samples.ts', 'analysis/engine/selfTest.mjs', '', null]) {
      await expect(runTileCall({ module, name: 'sumOnWorker', input: null } as unknown as Parameters<typeof runTileCall>[0]), String(module)).rejects.toThrow(/is not a module under src\//);
    }
    // Under src/ but not in its threadTasks: an exported function that is no task, a module without a table, a name of the object's prototype.
    for (const [module, name] of [['analysis/engine/window.ts', 'aoiWindow'], ['analysis/engine/selfTest.ts', 'threadId'], ['analysis/engine/selfTest.ts', 'toString'], ['analysis/engine/selfTest.ts', 'constructor']]) {
      await expect(runTileCall({ module: module!, name: name!, input: null }), `${module} ${name}`).rejects.toThrow(/exports no .* in its threadTasks/);
    }
    // A task asked of another module than the one that exports it.
    await expect(runTileCall({ module: 'analysis/ship/tile.ts', name: 'sumOnWorker', input: null })).rejects.toThrow(/exports no/);
  });

  it('a table of thread tasks is defined only by a module under src/, and each entry carries its address', () => {
    expect(threadTasks.sumOnWorker).toMatchObject({ module: 'analysis/engine/selfTest.ts', name: 'sumOnWorker' });
    const f = (input: number) => input;
    expect(() => defineThreadTasks(import.meta.url, { f })).toThrow(/under src\//); // this test file
    expect(() => defineThreadTasks('file:///tmp/tasks.ts', { f })).toThrow(/under src\//);
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
    const out = await runTileTask({ task: threadTasks.sumOnWorker, input: { data } });
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

  it('a pool kept warm (minThreads = maxThreads, as keepAnalysisThreadsWarm makes it) starts its threads at once and keeps them through idleness; a cold one ends them', async () => {
    const call = threadCall({ task: threadTasks.sumOnWorker, input: { data: new Float32Array([1]) } });
    const warm = new ThreadPool(() => ({ minThreads: 2, maxThreads: 2, idleTimeout: 10 }));
    // The cold pool's idle timeout is long enough that a loaded machine cannot end its thread between the call
    // resolving and the count being read (10 ms did once, on CI); the wait for it to end polls rather than sleeping
    // a fixed time.
    const cold = new ThreadPool(() => ({ minThreads: 0, maxThreads: 2, idleTimeout: 300 }));
    try {
      warm.start();
      expect(warm.threadCount).toBe(2);
      const coldCount = cold.runCall(call).then(() => cold.threadCount);
      await warm.runCall(call);
      expect(await coldCount).toBeGreaterThan(0);
      const deadline = Date.now() + 30_000;
      while (cold.threadCount > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(warm.threadCount).toBe(2);
      expect(cold.threadCount).toBe(0);
    } finally {
      await Promise.all([warm.close(), cold.close()]);
    }
  });
});
