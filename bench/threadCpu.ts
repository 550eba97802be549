/**
 * Where a span's CPU time went, by thread of this process (Linux: /proc/self/task/TID/stat;
 * elsewhere nothing is reported). process.cpuUsage() sums every thread; this tells apart the
 * main thread, the threads that started within the span (the analysis pool's workers, which a
 * job starts) and those running before it (V8's helper threads — concurrent marking, parallel
 * scavenges and compiles for every isolate of the process — libuv's file-read threads, the
 * geometry thread). A thread that ended within the span is in none of the three.
 */
import fs from 'node:fs';

/** /proc reports thread times in USER_HZ, 100 per second on every Linux. */
const USER_HZ = 100;

/** CPU seconds of each thread of this process now (user + system, and system alone) and its minor page faults, by thread id; empty where /proc is not there. */
export function threadCpuNow(): Map<number, { cpu: number; system: number; minorFaults: number }> {
  const out = new Map<number, { cpu: number; system: number; minorFaults: number }>();
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), { cpu: (Number(fields[11]) + Number(fields[12])) / USER_HZ, system: Number(fields[12]) / USER_HZ, minorFaults: Number(fields[7]) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

export interface ThreadCpuSplit {
  /** The main thread (the service, the job's merge, AIS matching). */
  main: number;
  /** Threads started within the span, each (largest first): the analysis pool's workers. */
  started: number[];
  /** Threads running before the span, together: V8's helpers, libuv's, the geometry thread. */
  before: number;
  /** Of all threads' time, the kernel's (page faults, file reads, memory mapped and returned). */
  system: number;
  /** Of all threads, the pages first touched (minor faults), in MB of 4 KiB pages: fresh memory is costly to touch on a VM. */
  faultedMb: number;
}

const r2 = (v: number) => Math.round(v * 100) / 100;

/** CPU seconds per thread between two readings of threadCpuNow. */
export function threadCpuSplit(start: ReturnType<typeof threadCpuNow>, end: ReturnType<typeof threadCpuNow>): ThreadCpuSplit | null {
  if (end.size === 0) return null;
  let main = 0;
  let before = 0;
  let system = 0;
  let faults = 0;
  const started: number[] = [];
  for (const [tid, now] of end) {
    const was = start.get(tid);
    const cpu = now.cpu - (was?.cpu ?? 0);
    system += now.system - (was?.system ?? 0);
    faults += now.minorFaults - (was?.minorFaults ?? 0);
    if (tid === process.pid) main = cpu;
    else if (was === undefined) started.push(cpu);
    else before += cpu;
  }
  return { main: r2(main), started: started.sort((a, b) => b - a).map(r2), before: r2(before), system: r2(system), faultedMb: Math.round((faults * 4096) / 2 ** 20) };
}
