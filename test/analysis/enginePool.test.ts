/**
 * Issue 4, Engine: tile tasks run on worker threads (piscina) with transferred buffers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool, runTileTask } from '../../src/analysis/engine/pool.ts';

afterAll(() => closeAnalysisPool());

describe('analysis worker pool', () => {
  it('runs an analysis module function on a worker thread and moves typed arrays without copying', async () => {
    const data = new Float32Array([1, 2, 3, 4]);
    const out = await runTileTask<{ threadId: number; sum: number }>(
      { module: 'engine/selfTest.ts', fn: 'sumOnWorker', input: { data } },
      [data.buffer],
    );
    expect(out.sum).toBe(10);
    expect(out.threadId).toBeGreaterThan(0); // not the main thread
    expect(data.byteLength).toBe(0); // the buffer was transferred
  });

  it('refuses module paths outside src/analysis', async () => {
    await expect(runTileTask({ module: '../../etc/passwd', fn: 'x', input: null })).rejects.toThrow(/invalid task module/);
  });
});
