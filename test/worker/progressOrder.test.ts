/**
 * The runner's progress writes reach the store in the order it made them. They are written
 * without the analysis waiting for them; on PostgreSQL two writes in flight on two pooled
 * connections may commit in either order, so a progress write delayed by more than the
 * throttle's second (a loaded machine) could land after the next one: the job's progress
 * went back (95, then 5) and the event log — the SSE stream — showed it. Here the store
 * holds the first write back (as a slow connection would) and the job's logged progress
 * must still only go up. SQLite, and PostgreSQL with SARWATCH_TEST_STORE=postgres.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import type { Db } from '../../src/store/index.ts';
import { JobRunner } from '../../src/worker/runner.ts';
import { openCatalog } from '../../src/runtime.ts';
import { TINY_SQUARE, startTestService, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';

const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };
const quiet = { info: () => {}, error: () => {} };

const open: TestService[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** Resolves once `ok` holds; fails after `ms` with `what`. */
async function until(ok: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * `db` with the runner's progress writes (the heartbeat's `update jobs set lease…, progress…`)
 * recorded; the first is held back until a later one has been written (the slow connection
 * that lost the race), or, when no later one is sent while it is held (writes in order),
 * for `holdMs` — a stand-in for the slow connection, not a wait for a condition.
 */
function slowFirstProgressWrite(db: Db, holdMs: number) {
  const attempted: number[] = [];
  const written: number[] = [];
  let laterWritten!: () => void;
  const later = new Promise<void>((r) => (laterWritten = r));
  const isProgressWrite = (sql: string) => /^update "jobs" set "lease_expires_at" = \S+, "progress" = /.test(sql);
  const wrap = (builder: any): any =>
    new Proxy(builder, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        if (prop === 'executeTakeFirst') {
          return async () => {
            const q = target.compile();
            if (!isProgressWrite(q.sql)) return value.call(target);
            const progress = Number(q.parameters[1]);
            const first = attempted.length === 0;
            attempted.push(progress);
            if (first) await Promise.race([later, new Promise((r) => setTimeout(r, holdMs))]);
            const res = await value.call(target);
            written.push(progress);
            if (!first) laterWritten();
            return res;
          };
        }
        return (...args: unknown[]) => {
          const out = value.apply(target, args);
          return out && typeof out === 'object' && 'compile' in out ? wrap(out) : out;
        };
      },
    });
  const slow = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === 'updateTable') return (...args: unknown[]) => wrap((value as (...a: unknown[]) => unknown).apply(target, args));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Db;
  return { db: slow, attempted, written };
}

describe('worker: progress writes in order', () => {
  it('a progress write held back by the store does not land after the next one: the logged progress only goes up (5, then 95)', async () => {
    // API only: the job is run by the runner made here, on the store with the slow first write.
    const t = await startTestService({}, { roles: { api: true, worker: false } });
    open.push(t);
    // The worker role indexes the archive; here the test does, for the runner made below.
    const { catalog, reindex } = openCatalog(t.config, t.service.db);
    await reindex!();
    const store = slowFirstProgressWrite(t.service.db, 3000);
    const module: AnalysisModule = {
      endpointId: 'timeseries',
      async run(request, ctx) {
        ctx.reportProgress(100); // 95 of the job: written by the throttle's trailing write, a second after the 5
        // Runs until both writes are written, so the job's completion does not cancel the 95.
        await until(() => store.written.length >= 2, 'both progress writes');
        return aoiEchoTestDetector('timeseries').run(request, { ...ctx, reportProgress: () => {} });
      },
    };
    const runner = new JobRunner({ db: store.db, config: t.config, objects: t.service.objects, catalog, registry: createRegistry([module]), log: quiet, leaseSeconds: 600 }); // the lease's own heartbeats (every 200 s) stay out of it
    try {
      const { job_id } = await t.client.submit('analyze', 'timeseries', periodBody);
      await runner.run(job_id);
      const job = await t.client.getJob(job_id);
      expect(job.status, `${job.error_code}: ${job.error_message}`).toBe('completed');
      expect(store.attempted).toEqual([5, 95]);
      const logged = await t.service.db.selectFrom('job_events').select(['kind', 'progress']).where('job_id', '=', job_id).orderBy('id').execute();
      expect(logged.filter((e) => e.kind === 'progress').map((e) => Number(e.progress))).toEqual([5, 95]);
      expect(store.written).toEqual([5, 95]);
    } finally {
      await runner.close();
    }
  });
});
