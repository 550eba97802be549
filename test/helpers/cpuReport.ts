/**
 * SARWATCH_TEST_CPU=<file> (a vitest setup file, vitest.config.ts): after each test file, one
 * JSON line `{"file","cpuS","pid"}` is appended to <file>: the CPU seconds (user + system) of the
 * process that ran the file and of the child processes it waited for (`sarwatch` runs, the
 * servers it started), read from /proc/self/stat. Each file runs in a fresh fork, so this is
 * what the file costs, module loading included — the figure that matters on a shared two-core
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
    fs.appendFileSync(out, `${JSON.stringify({ file, cpuS: cpuSeconds(), pid: process.pid })}\n`);
  });
}
