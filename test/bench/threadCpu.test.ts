import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCpuNow, threadCpuSplit } from '../../bench/threadCpu.ts';

/** busy(s) for a worker: spins until the calling thread has used s more CPU seconds (user + system, USER_HZ 100); returns a sum. */
const BUSY = `function busy(s) {
  const fs = require('node:fs');
  const cpu = () => { const t = fs.readFileSync('/proc/thread-self/stat', 'latin1'); const f = t.slice(t.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
  const c0 = cpu(); let x = 0;
  while (cpu() - c0 < s) for (let i = 0; i < 1e5; i++) x += Math.sqrt(i);
  return x;
}`;

/** The same in this thread. */
function busy(s: number): number {
  const cpu = () => {
    const t = fs.readFileSync('/proc/thread-self/stat', 'latin1');
    const f = t.slice(t.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  };
  const c0 = cpu();
  let x = 0;
  while (cpu() - c0 < s) for (let i = 0; i < 1e5; i++) x += Math.sqrt(i);
  return x;
}

describe.runIf(process.platform === 'linux')('bench/threadCpu.ts: a span\'s CPU by thread', () => {
  it('tells the main thread, a thread started within the span and the threads running before apart', async () => {
    const start = threadCpuNow();
    expect(start.get(process.pid)).toBeDefined();
    // A thread started within the span, busy 0.3 CPU s of its own (/proc/thread-self), kept alive (blocked) until read.
    const lock = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       ${BUSY}
       busy(0.3);
       const lock = new Int32Array(workerData);
       Atomics.store(lock, 0, 1); Atomics.notify(lock, 0);
       Atomics.wait(lock, 1, 0);`,
      { eval: true, workerData: lock.buffer },
    );
    while (Atomics.load(lock, 0) === 0) await new Promise((r) => setTimeout(r, 10));
    // The main thread's own 0.2 CPU s within the span.
    const x = busy(0.2);
    const split = threadCpuSplit(start, threadCpuNow())!;
    Atomics.store(lock, 1, 1);
    Atomics.notify(lock, 1);
    await worker.terminate();

    expect(x).toBeGreaterThan(0);
    expect(split.main).toBeGreaterThanOrEqual(0.2);
    // The worker: the busiest thread started within the span (its start counted too).
    expect(split.started[0]).toBeGreaterThanOrEqual(0.3);
    expect(split.started).toEqual([...split.started].sort((a, b) => b - a));
    expect(split.before).toBeGreaterThanOrEqual(0);
    expect(split.system).toBeGreaterThanOrEqual(0);
    expect(split.faultedMb).toBeGreaterThanOrEqual(0);
  });

  it('counts threads present at both readings as running before, never as started', () => {
    const a = new Map([
      [process.pid, { cpu: 1, system: 0.1, minorFaults: 10 }],
      [1, { cpu: 2, system: 0.2, minorFaults: 0 }],
    ]);
    const b = new Map([
      [process.pid, { cpu: 1.5, system: 0.2, minorFaults: 266 }],
      [1, { cpu: 3, system: 0.2, minorFaults: 0 }],
      [2, { cpu: 4, system: 0.5, minorFaults: 256 }],
    ]);
    expect(threadCpuSplit(a, b)).toEqual({ main: 0.5, started: [4], before: 1, system: 0.6, faultedMb: 2 });
  });
});
