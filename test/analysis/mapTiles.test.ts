/**
 * The tile engine (src/analysis/engine/mapTiles.ts): merges in plan order whatever order the
 * pool finishes in, bounds the tasks out at once, stops on abort with the signal's reason (at
 * once, even while a read is awaited) and leaves no task running behind a failure; with no
 * `read` each task gets its tile alone. Tasks are the pool's self-test tasks (a sum, and a
 * task that holds its thread until released), so the order of events is set by the test.
 */
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { mapTiles } from '../../src/analysis/engine/mapTiles.ts';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { threadTasks } from '../../src/analysis/engine/selfTest.ts';
import { planTiles } from '../../src/imagery/tiles.ts';

afterAll(() => closeAnalysisPool());

const release = (gate: Int32Array): void => {
  Atomics.store(gate, 0, 1);
  Atomics.notify(gate, 0);
};

/** Four tiles whose tasks hold a pool thread each until the test releases them. */
function heldTiles() {
  const plan = planTiles(40, 10, 10, 0);
  const gates = plan.tiles.map(() => new Int32Array(new SharedArrayBuffer(4)));
  const started: number[] = [];
  const waiters = new Map<number, () => void>();
  const task = {
    run: threadTasks.holdUntilReleased,
    params: undefined,
    input: (tile: { index: number }) => {
      const { port1, port2 } = new MessageChannel();
      port1.once('message', () => {
        started.push(tile.index);
        port1.close();
        waiters.get(started.length)?.();
      });
      return { input: { gate: gates[tile.index]!, started: port2 }, transfer: [port2], keep: tile.index };
    },
  };
  const startedCount = (n: number) => (started.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(n, resolve)));
  return { plan, gates, started, task, startedCount };
}

describe('mapTiles', () => {
  it('runs the same function in this thread (threads 0) and on the pool, and merges in plan order with progress per tile', async () => {
    const plan = planTiles(30, 20, 10, 2);
    for (const threads of [0, 2]) {
      const merged: { index: number; sum: number; onPool: boolean }[] = [];
      const progress: string[] = [];
      await mapTiles(
        plan,
        async (window) => new Float32Array(window.width * window.height).fill(window.x0 + 100 * window.y0),
        {
          run: threadTasks.sumOnWorker,
          params: undefined,
          input: (_tile, data) => ({ input: { data }, transfer: [data.buffer as ArrayBuffer], keep: undefined }),
        },
        (tile, out) => merged.push({ index: tile.index, sum: out.sum, onPool: out.threadId !== 0 }),
        { threads, onProgress: (done, total) => progress.push(`${done}/${total}`) },
      );
      expect(merged.map((m) => m.index)).toEqual([0, 1, 2, 3, 4, 5]);
      // Tile 4 (row 1, column 1): halo x0 8, y0 8, 14 × 12 pixels of 8 + 800.
      expect(merged[4]!.sum).toBe(14 * 12 * 808);
      expect(merged.every((m) => m.onPool === threads > 0)).toBe(true);
      expect(progress).toEqual(['1/6', '2/6', '3/6', '4/6', '5/6', '6/6']);
    }
  });

  it('keeps at most `threads` tasks out, and merges a tile only once every earlier tile is merged', async () => {
    const held = heldTiles();
    const merged: number[] = [];
    // No read: the tasks need none (as a task that reads its own tile).
    const run = mapTiles(held.plan, null, held.task, (_tile, _out, index) => merged.push(index), { threads: 2 });
    await held.startedCount(2);
    expect(held.started.sort()).toEqual([0, 1]);
    // Tile 1 finishes first: it waits for tile 0, and a third task goes out in its place.
    release(held.gates[1]!);
    await held.startedCount(3);
    expect(held.started).toContain(2);
    expect(merged).toEqual([]);
    release(held.gates[0]!);
    await held.startedCount(4);
    release(held.gates[2]!);
    release(held.gates[3]!);
    await run;
    expect(merged).toEqual([0, 1, 2, 3]);
  });

  it('an abort rejects with the signal reason, ends the tasks out (their threads are terminated) and merges nothing more', async () => {
    const held = heldTiles();
    const abort = new AbortController();
    const merged: number[] = [];
    const reason = new Error('job cancelled');
    const run = mapTiles(held.plan, null, held.task, (_tile, _out, index) => merged.push(index), { threads: 2, signal: abort.signal });
    await held.startedCount(2);
    abort.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(merged).toEqual([]);
    expect(held.started).toHaveLength(2);
  });

  it('an abort while a read is awaited ends the run at once: the read is not waited for, and no tile is read or dispatched after it', async () => {
    const plan = planTiles(40, 10, 10, 0);
    const abort = new AbortController();
    const reason = new Error('job cancelled');
    const reads: number[] = [];
    const dispatched: number[] = [];
    const run = mapTiles(
      plan,
      // A read that never ends (a stalled file system): before, the loop waited on it past the abort.
      (_window, tile) => {
        reads.push(tile.index);
        return new Promise<Float32Array>(() => {});
      },
      {
        run: threadTasks.sumOnWorker,
        params: undefined,
        input: (tile, data) => {
          dispatched.push(tile.index);
          return { input: { data }, keep: undefined };
        },
      },
      () => {},
      { threads: 2, prefetch: 0, signal: abort.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toEqual([0]);
    abort.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect({ reads, dispatched }).toEqual({ reads: [0], dispatched: [] });
  });

  it('a failing tile fails the run after the tiles before it are merged, with no task left running', async () => {
    const plan = planTiles(40, 10, 10, 0);
    const merged: number[] = [];
    await expect(
      mapTiles(
        plan,
        async (_window, tile) => tile.index,
        {
          run: threadTasks.sumOnWorker,
          params: undefined,
          // Tile 2's input is not an array: the task throws on the worker.
          input: (tile, index) => ({ input: { data: (index === 2 ? 7 : new Float32Array([index])) as Float32Array }, keep: undefined }),
        },
        (tile) => merged.push(tile.index),
        { threads: 2 },
      ),
    ).rejects.toThrow(/not iterable/);
    expect(merged).toEqual([0, 1]);
  });
});
