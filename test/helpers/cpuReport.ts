/**
 * SARWATCH_TEST_CPU=<file> (a vitest setup file, vitest.config.ts): after each test file, one
 * JSON line `{"file","cpuS","pid"}` is appended to <file>: the CPU seconds (user + system) the
 * file cost its worker process and the child processes it waited for (`sarwatch` runs, the
 * servers it started), from /proc/self/stat — counted from the process's start for the first
 * file of a worker (module loading included), from the previous file's end for the files after
 * it in a shared worker. CPU, not wall time, is the figure to compare on a shared two-core
 * machine, where wall times say more about the load than about the file. Linux only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const out = process.env.SARWATCH_TEST_CPU;
const TICKS_PER_S = 100; // USER_HZ, 100 on Linux

/** utime + stime + cutime + cstime of this process, in seconds. */
function cpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((s, f) => s + Number(f), 0) / TICKS_PER_S;
}

if (out) {
  let file = '';
  beforeAll(() => {
    file = path.relative(process.cwd(), expect.getState().testPath ?? '');
  });
  afterAll(() => {
    // Kept on globalThis: this module may be evaluated again for each file of a shared worker.
    const state = globalThis as { sarwatchCpuReported?: number };
    const total = cpuSeconds();
    const cpuS = Math.round((total - (state.sarwatchCpuReported ?? 0)) * 100) / 100;
    state.sarwatchCpuReported = total;
    fs.appendFileSync(out, `${JSON.stringify({ file, cpuS, pid: process.pid })}\n`);
  });
}
