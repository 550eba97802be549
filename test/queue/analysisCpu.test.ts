/**
 * Issue 20 §2: a worker's account of where its analysis CPU goes (src/analysis/engine/cpu.ts),
 * which its /metrics reports and bench/distributed.ts splits each worker's CPU by: tile tasks
 * and their module loads, timed by the pool thread that ran them, and the merge, timed by the
 * thread that merged.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { analysisCpu, threadCpuSeconds } from '../../src/analysis/engine/cpu.ts';
import { closeAnalysisPool, runTileTask } from '../../src/analysis/engine/pool.ts';
import { mapTiles } from '../../src/analysis/engine/mapTiles.ts';
import { threadTasks } from '../../src/analysis/engine/selfTest.ts';
import { createMetrics } from '../../src/metrics.ts';
import type { TilePlan } from '../../src/imagery/tiles.ts';

afterAll(() => closeAnalysisPool());

const linux = threadCpuSeconds() !== null;
const processCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

describe.runIf(linux)('analysis CPU account', () => {
  it('counts a pool task on its thread: within the process CPU it cost, none of it on the calling thread', async () => {
    await runTileTask({ task: threadTasks.sumOnWorker, input: { data: new Float32Array(4) } }); // the pool's threads up
    const before = analysisCpu();
    const cpu0 = processCpu();
    const main0 = threadCpuSeconds()!;
    const out = await runTileTask({ task: threadTasks.spinOnWorker, input: { ms: 400 } });
    const spent = processCpu() - cpu0;
    const onMain = threadCpuSeconds()! - main0;
    const after = analysisCpu();
    expect(out.spins).toBeGreaterThan(0);
    const tasks = after.tileTasks - before.tileTasks;
    // The thread spun 400 ms of wall time: on a loaded machine it got less CPU than that, but
    // some (ticks of 10 ms), and never more than the process spent outside this thread.
    expect(tasks).toBeGreaterThan(0.02);
    expect(tasks).toBeLessThanOrEqual(0.4 + 0.02);
    expect(tasks).toBeLessThanOrEqual(spent - onMain + 0.02);
    expect(after.merge).toBe(before.merge);
  });

  it("counts mapTiles' merge on the merging thread, and the tasks it ran on the pool", async () => {
    const plan = { tiles: [0, 1, 2].map((i) => ({ index: i })) } as unknown as TilePlan;
    const before = analysisCpu();
    const main0 = threadCpuSeconds()!;
    let merged = 0;
    await mapTiles(
      plan,
      null,
      { run: threadTasks.spinOnWorker, params: undefined, input: () => ({ input: { ms: 100 }, keep: undefined }) },
      () => {
        // Each merge keeps this thread busy for 150 ms of wall time.
        const end = performance.now() + 150;
        while (performance.now() < end) merged += 0;
        merged++;
      },
      { threads: 2 },
    );
    const onMain = threadCpuSeconds()! - main0;
    const after = analysisCpu();
    expect(merged).toBe(3);
    const merge = after.merge - before.merge;
    expect(merge).toBeGreaterThan(0.02);
    expect(merge).toBeLessThanOrEqual(onMain + 0.01);
    expect(after.tileTasks - before.tileTasks).toBeGreaterThan(0.02);
  });

  it('a worker reports the account on /metrics', async () => {
    const metrics = createMetrics({ db: null as never });
    const metric = await metrics.registry.getSingleMetric('sarwatch_analysis_cpu_seconds_total')!.get();
    const now = analysisCpu();
    const value = (part: string) => metric.values.find((v) => v.labels.part === part)?.value;
    expect(value('tile_tasks')).toBeCloseTo(now.tileTasks, 6);
    expect(value('task_modules')).toBeCloseTo(now.taskModules, 6);
    expect(value('merge')).toBeCloseTo(now.merge, 6);
    expect(now.tileTasks).toBeGreaterThan(0);
  });
});
