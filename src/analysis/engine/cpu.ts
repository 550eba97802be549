/**
 * Where an analysis process's CPU goes (issue 20 §2: the extra CPU of a job spread over several
 * workers): each thread's own CPU time, read from Linux's /proc/thread-self/stat, summed per
 * process into a few parts. Reported by a worker's `/metrics`
 * (`sarwatch_analysis_cpu_seconds_total`, docs/deploy.md) and read by bench/distributed.ts.
 */
import fs from 'node:fs';

/** /proc reports thread times in USER_HZ, 100 per second on every Linux. */
const USER_HZ = 100;

let available: boolean | undefined;

/** CPU seconds (user + system) of the calling thread so far; null where /proc is not there (not Linux). */
export function threadCpuSeconds(): number | null {
  if (available === false) return null;
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    available = true;
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    available = false;
    return null;
  }
}

/** CPU seconds between two readings of `threadCpuSeconds` (0 when either is missing). */
export function cpuSince(start: number | null): number {
  if (start === null) return 0;
  const now = threadCpuSeconds();
  return now === null ? 0 : Math.max(0, now - start);
}

/** This process's analysis CPU by part, seconds since it started. */
export interface AnalysisCpu {
  /** Analysis threads loading the module a tile task names (its first call on each thread). */
  taskModules: number;
  /** Analysis threads running tile tasks (reading their tiles, opening products on first use, analysing). */
  tileTasks: number;
  /** The calling thread merging tile results in plan order and building the job's result from them. */
  merge: number;
}

const totals: AnalysisCpu = { taskModules: 0, tileTasks: 0, merge: 0 };

export function analysisCpu(): Readonly<AnalysisCpu> {
  return { ...totals };
}

export function addAnalysisCpu(part: keyof AnalysisCpu, seconds: number): void {
  if (seconds > 0) totals[part] += seconds;
}
