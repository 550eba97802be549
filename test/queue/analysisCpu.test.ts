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
    const wall0 = performance.now();
    const out = await runTileTask({ task: threadTasks.spinOnWorker, input: { cpuSeconds: 0.1 } });
    const wall = (performance.now() - wall0) / 1000;
    const spent = processCpu() - cpu0;
    const onMain = threadCpuSeconds()! - main0;
    const after = analysisCpu();
    expect(out.spins).toBeGreaterThan(0);
    const tasks = after.tileTasks - before.tileTasks;
    // The thread spun until it had used 0.1 CPU s by its own count (ticks of 10 ms): that much
    // whatever the machine's load (a 400 ms wall-time spin before got a thread ~40 ms at load
    // 20 on two cores, against a bound of 20 ms); never more than the call's wall time, nor
    // than the process spent outside this thread.
    expect(tasks).toBeGreaterThanOrEqual(0.1 - 0.01);
    expect(tasks).toBeLessThanOrEqual(wall + 0.02);
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
      { run: threadTasks.spinOnWorker, params: undefined, input: () => ({ input: { cpuSeconds: 0.03 }, keep: undefined }) },
      () => {
        // Each merge keeps this thread busy until it has used 50 ms of CPU (not wall time: see above).
        const cpu0 = threadCpuSeconds()!;
        while (threadCpuSeconds()! - cpu0 < 0.05) merged += 0;
        merged++;
      },
      { threads: 2 },
    );
    const onMain = threadCpuSeconds()! - main0;
    const after = analysisCpu();
    expect(merged).toBe(3);
    const merge = after.merge - before.merge;
    expect(merge).toBeGreaterThanOrEqual(3 * 0.05 - 0.01);
    expect(merge).toBeLessThanOrEqual(onMain + 0.01);
    expect(after.tileTasks - before.tileTasks).toBeGreaterThanOrEqual(3 * 0.03 - 0.01);
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
