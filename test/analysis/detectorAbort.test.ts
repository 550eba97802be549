/**
 * Issue 10.8: the detectors stop when their job's signal aborts — between tiles when they
 * loop on the main thread, and at once for tiles out on the analysis pool. The signal is
 * aborted from the progress callback, so the point of abort is exact without any timing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeAnalysisPool } from '../../src/analysis/engine/pool.ts';
import { detectShipsInSafe } from '../../src/analysis/ship/index.ts';
import { detectSlicksInSafe } from '../../src/analysis/oilslick/index.ts';
import { NORTH_SEA_SAFE } from '../imagery/fixtures.ts';

afterAll(() => closeAnalysisPool());

const shutdown = new Error('the worker is shutting down');

/** A signal aborted by the first progress report, and the reports seen. */
function abortOnFirstProgress() {
  const abort = new AbortController();
  const progress: number[] = [];
  return {
    signal: abort.signal,
    progress,
    onProgress: (p: number) => {
      progress.push(p);
      abort.abort(shutdown);
    },
  };
}

describe('issue 10.8: detectors honour the abort signal (real North-Sea GRD crop)', () => {
  it('issue 10.8: ship on the main thread stops after the tile it was on: one tile of 16 analysed', async () => {
    const run = abortOnFirstProgress();
    await expect(detectShipsInSafe(NORTH_SEA_SAFE, { params: { tileSize: 256 }, threads: 0, ...run })).rejects.toBe(shutdown);
    expect(run.progress).toEqual([6]); // floor(100 · 1/16)
  });

  it('issue 10.8: ship on the analysis pool: the abort rejects the tiles in flight, no further tile is sent, no rejection goes unhandled', async () => {
    const run = abortOnFirstProgress();
    await expect(detectShipsInSafe(NORTH_SEA_SAFE, { params: { tileSize: 256 }, threads: 2, ...run })).rejects.toBe(shutdown);
    // The first merged tile aborts; tiles that settled meanwhile are not merged or reported.
    expect(run.progress).toEqual([6]); // floor(100 · 1/16)
  });

  it('issue 10.8: oilslick on the main thread stops after the tile it was on', async () => {
    const run = abortOnFirstProgress();
    await expect(detectSlicksInSafe(NORTH_SEA_SAFE, { params: { tileSize: 256 }, workers: 0, ...run })).rejects.toBe(shutdown);
    expect(run.progress).toHaveLength(1);
  });

  it('issue 10.8: oilslick on the analysis pool (each task reading its own tile): the first report aborts, nothing further is merged or reported', async () => {
    const run = abortOnFirstProgress();
    await expect(detectSlicksInSafe(NORTH_SEA_SAFE, { params: { tileSize: 256 }, workers: 2, ...run })).rejects.toBe(shutdown);
    expect(run.progress).toHaveLength(1);
  });
});
