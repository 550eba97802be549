/**
 * The monitor duties of a worker process: settle finished runs (every second), submit runs
 * left queued (every 5 s), suspend monitors whose polygon upload is gone (every 30 s), and —
 * with a remote catalog — poll it for new scenes every SARWATCH_MONITOR_POLL_SECONDS, one
 * process at a time (a store lease). With the local archive, new scenes come from the
 * archive watch instead (runtime.ts).
 */
import type { Db } from '../store/index.ts';
import { runExclusive } from '../store/leases.ts';
import type { MonitorRunner } from './runner.ts';

export const MONITOR_POLL_LEASE = 'monitor-poller';

export interface MonitorDutyDeps {
  db: Db;
  runner: MonitorRunner;
  owner: string;
  /** Null: no catalog poll (the local archive's watch brings new scenes). */
  pollSeconds: number | null;
  log: { error(o: object, m?: string): void };
  evaluateMs?: number;
}

/** Starts the timers; the returned function stops them and waits for the duty under way. */
export function startMonitorDuties(d: MonitorDutyDeps): () => Promise<void> {
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  const guard = (name: string, fn: () => Promise<unknown>) => {
    let busy = false;
    return () => {
      if (busy || stopped) return;
      busy = true;
      const p = fn()
        .catch((e) => d.log.error({ err: e instanceof Error ? e.message : String(e) }, `monitor ${name} failed`))
        .finally(() => {
          busy = false;
          running.delete(p);
        });
      running.add(p);
    };
  };
  const timers = [
    setInterval(guard('evaluation', () => d.runner.evaluateFinished()), d.evaluateMs ?? 1000),
    setInterval(guard('retry', () => d.runner.retryQueued()), 5000),
    setInterval(guard('upload check', () => d.runner.suspendOrphans()), 30_000),
  ];
  if (d.pollSeconds !== null) {
    const poll = guard('catalog poll', () => runExclusive(d.db, MONITOR_POLL_LEASE, d.owner, Math.max(60, d.pollSeconds! * 2), () => d.runner.pollCatalog()));
    timers.push(setInterval(poll, d.pollSeconds * 1000));
    poll();
  }
  for (const t of timers) t.unref();
  return async () => {
    stopped = true;
    timers.forEach(clearInterval);
    await Promise.allSettled([...running]);
  };
}
