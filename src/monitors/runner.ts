/**
 * What makes monitors run: new scenes in (from the archive watch or a catalog poll) →
 * one claimed run per (monitor, scene) → a job submitted through the job service; finished
 * jobs → the condition evaluated → monitor.triggered; failures, caps, balance and deleted
 * uploads → suspension. Every step is a guarded statement, so any number of processes may
 * run these at once, and a restart picks up where the last one stopped.
 */
import type { Db, JobRow, MonitorRow, MonitorRunRow } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { ObjectStore } from '../objects/port.ts';
import { matchesQuery, type SceneCatalog, type SceneRecord } from '../catalog/index.ts';
import type { JobService } from '../jobs/service.ts';
import { ApiError } from '../contract/errors.ts';
import type { MonitorCondition, MonitorEndpoint } from '../contract/monitors.ts';
import { fromMicros } from '../jobs/credits.ts';
import { bboxOf, parseAoiWkt, type AoiGeometry } from '../geo/index.ts';
import { evaluateCondition, isDue, monthStart, productTypeOf, runBody } from './rules.ts';
import { claimScene } from './transitions/claimScene.ts';
import { skipRun } from './transitions/skipRun.ts';
import { settleRun } from './transitions/settleRun.ts';
import { suspendMonitor } from './transitions/suspendMonitor.ts';
import { monthSpentMicros } from './spending.ts';

export interface MonitorRunnerDeps {
  db: Db;
  config: Pick<Config, 'monitorMaxFailures'>;
  jobs: JobService;
  catalog: SceneCatalog;
  objects: ObjectStore;
  log: { info(o: object, m?: string): void; error(o: object, m?: string): void };
  now?: () => Date;
}

/** Why a run was not submitted, decided inside the job's transaction. */
class RunRefused extends Error {
  constructor(
    readonly kind: 'taken' | 'paused' | 'cap',
    message: string,
  ) {
    super(message);
  }
}

/** A queued run older than this is taken to be abandoned by its process and submitted again. */
const QUEUED_GRACE_MS = 15_000;

export class MonitorRunner {
  private readonly now: () => Date;

  constructor(private readonly d: MonitorRunnerDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /** The active monitors a scene is for: bounding boxes in the store, then the exact AOI. */
  async monitorsFor(scene: SceneRecord): Promise<MonitorRow[]> {
    const [x0, y0, x1, y1] = bboxOf(scene.footprint);
    const rows = await this.d.db
      .selectFrom('monitors')
      .selectAll()
      .where('state', '=', 'active')
      .where('min_lon', '<=', x1)
      .where('max_lon', '>=', x0)
      .where('min_lat', '<=', y1)
      .where('max_lat', '>=', y0)
      .execute();
    const out: MonitorRow[] = [];
    for (const m of rows) {
      if (m.orbit_direction && m.orbit_direction !== scene.orbitDirection) continue;
      if (productTypeOf(m.endpoint_id, m.family) !== scene.productType) continue;
      const aoi = await this.aoiOf(m);
      if (aoi && matchesQuery(scene, { intersects: aoi }, true)) out.push(m);
    }
    return out;
  }

  /** New scenes in: claim and submit a run of every monitor each one is due for. Returns the jobs submitted. */
  async onNewScenes(scenes: readonly SceneRecord[]): Promise<number> {
    let submitted = 0;
    for (const scene of scenes) {
      for (const m of await this.monitorsFor(scene)) {
        if (!isDue(m, scene.startTime)) continue;
        if (!(await claimScene(this.d.db, m, scene, this.now()))) continue;
        const run = await this.d.db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', m.id).where('scene_id', '=', scene.sceneId).executeTakeFirstOrThrow();
        if (await this.submit(m, run)) submitted++;
      }
    }
    return submitted;
  }

  /**
   * Submits a queued run as a job of the account. Inside the job's own transaction, under the
   * account's lock: the monitor must still be active, the month's spending plus this run's
   * reservation must fit the cap, and the run must still be queued (the exactly-once guard
   * against another process submitting it). True when this call created the job.
   */
  async submit(m: MonitorRow, run: MonitorRunRow): Promise<boolean> {
    const { db, jobs } = this.d;
    const body = runBody(m, { startTime: run.scene_time, orbitDirection: run.orbit_direction as SceneRecord['orbitDirection'] });
    try {
      const job = await jobs.submitRun({ accountId: m.account_id, monitorId: m.id, family: m.family as 'analyze' | 'detect', endpoint: m.endpoint_id as MonitorEndpoint, body }, async (tx, job) => {
        const now = this.now();
        const current = await tx.selectFrom('monitors').select(['state', 'max_credits_per_month_micros']).where('id', '=', m.id).executeTakeFirst();
        if (current?.state !== 'active') throw new RunRefused('paused', `the monitor was ${current?.state ?? 'deleted'} when the scene came in`);
        const spent = await monthSpentMicros(tx, m.id, monthStart(now));
        const cap = Number(current.max_credits_per_month_micros);
        if (spent + job.credits_reserved_micros > cap) {
          throw new RunRefused('cap', `this run needs up to ${fromMicros(job.credits_reserved_micros)} credits; ${fromMicros(spent)} of the ${fromMicros(cap)} allowed this month are spent`);
        }
        const at = now.toISOString();
        const claimed = await tx
          .updateTable('monitor_runs')
          .set({ status: 'submitted', job_id: job.id, updated_at: at })
          .where('monitor_id', '=', run.monitor_id)
          .where('scene_id', '=', run.scene_id)
          .where('status', '=', 'queued')
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) throw new RunRefused('taken', 'another process submitted this run');
        await tx
          .updateTable('monitors')
          .set({ last_scene_id: run.scene_id, last_scene_time: run.scene_time, updated_at: at })
          .where('id', '=', m.id)
          .where((eb) => eb.or([eb('last_scene_time', 'is', null), eb('last_scene_time', '<', run.scene_time)]))
          .execute();
      });
      this.d.log.info({ monitorId: m.id, jobId: job.id, sceneTime: run.scene_time }, 'monitor run submitted');
      return true;
    } catch (e) {
      await this.refused(m, run, e);
      return false;
    }
  }

  private async refused(m: MonitorRow, run: MonitorRunRow, e: unknown): Promise<void> {
    const key = { monitorId: run.monitor_id, sceneId: run.scene_id };
    const now = this.now();
    if (e instanceof RunRefused) {
      if (e.kind === 'paused') await skipRun(this.d.db, key, e.message, now);
      if (e.kind === 'cap') await skipRun(this.d.db, key, e.message, now, 'cap_reached');
      return;
    }
    if (e instanceof ApiError) {
      if (e.code === 'INSUFFICIENT_CREDITS') return void (await skipRun(this.d.db, key, e.message, now, 'balance_too_low'));
      if (m.polygon_id && (e.code === 'NOT_FOUND' || e.code === 'NOT_READY')) return void (await skipRun(this.d.db, key, e.message, now, 'polygon_deleted'));
      if (e.code === 'VALIDATION_ERROR') return void (await skipRun(this.d.db, key, e.message, now));
      // CONCURRENT_JOB_LIMIT, SERVICE_UNAVAILABLE: the run stays queued and is tried again.
      this.d.log.info({ monitorId: m.id, code: e.code }, 'monitor run not submitted yet; it is retried');
      return;
    }
    this.d.log.error({ monitorId: m.id, err: e instanceof Error ? e.message : String(e) }, 'monitor run submission failed; it is retried');
  }

  /** Queued runs whose process stopped before submitting them (or that waited on a limit). */
  async retryQueued(): Promise<number> {
    const before = new Date(this.now().getTime() - QUEUED_GRACE_MS).toISOString();
    const runs = await this.d.db.selectFrom('monitor_runs').selectAll().where('status', '=', 'queued').where('updated_at', '<', before).orderBy('created_at').limit(100).execute();
    let n = 0;
    for (const run of runs) {
      const m = await this.d.db.selectFrom('monitors').selectAll().where('id', '=', run.monitor_id).executeTakeFirst();
      if (!m) continue;
      // Touch it first, so a run refused again for a transient reason waits another grace period.
      await this.d.db.updateTable('monitor_runs').set({ updated_at: this.now().toISOString() }).where('monitor_id', '=', run.monitor_id).where('scene_id', '=', run.scene_id).where('status', '=', 'queued').execute();
      if (await this.submit(m, run)) n++;
    }
    return n;
  }

  /**
   * A remote catalog (STAC, Planetary Computer, CDSE): each active monitor searches its AOI for
   * scenes acquired since the newest it ran on (or since it was created). The (monitor, scene)
   * key makes the inclusive bound safe.
   */
  async pollCatalog(): Promise<number> {
    const monitors = await this.d.db.selectFrom('monitors').selectAll().where('state', '=', 'active').orderBy('created_at').execute();
    let n = 0;
    for (const m of monitors) {
      const aoi = await this.aoiOf(m);
      if (!aoi) continue;
      const since = m.last_scene_time && m.last_scene_time > m.created_at ? m.last_scene_time : m.created_at;
      let scenes: SceneRecord[];
      try {
        scenes = await this.d.catalog.search({ intersects: aoi, start: new Date(since), productTypes: [productTypeOf(m.endpoint_id, m.family)], ...(m.orbit_direction ? { orbitDirection: m.orbit_direction as 'ascending' } : {}) });
      } catch (e) {
        this.d.log.error({ monitorId: m.id, err: (e as Error).message }, 'monitor catalog search failed; tried again at the next poll');
        continue;
      }
      for (const scene of scenes) {
        const fresh = await this.d.db.selectFrom('monitors').selectAll().where('id', '=', m.id).executeTakeFirst();
        if (!fresh || fresh.state !== 'active' || !isDue(fresh, scene.startTime)) continue;
        if (!(await claimScene(this.d.db, fresh, scene, this.now()))) continue;
        const run = await this.d.db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', m.id).where('scene_id', '=', scene.sceneId).executeTakeFirstOrThrow();
        if (await this.submit(fresh, run)) n++;
      }
    }
    return n;
  }

  /** Settles the runs whose job ended: the condition on the result, then events and streaks. */
  async evaluateFinished(): Promise<number> {
    const rows = await this.d.db
      .selectFrom('monitor_runs as r')
      .innerJoin('jobs as j', 'j.id', 'r.job_id')
      .selectAll('r')
      .where('r.status', '=', 'submitted')
      .where('j.status', 'in', ['completed', 'failed'])
      .orderBy('r.updated_at')
      .limit(100)
      .execute();
    let n = 0;
    for (const run of rows) {
      const job = await this.d.db.selectFrom('jobs').selectAll().where('id', '=', run.job_id!).executeTakeFirstOrThrow();
      const m = await this.d.db.selectFrom('monitors').select(['endpoint_id', 'condition']).where('id', '=', run.monitor_id).executeTakeFirst();
      let outcome = null;
      let reason: string | undefined;
      if (job.status === 'completed' && m) {
        try {
          const result = await this.readResult(job);
          if (result) outcome = evaluateCondition(m.endpoint_id as MonitorEndpoint, JSON.parse(m.condition) as MonitorCondition, result);
          else reason = 'the result was gone before the condition could be evaluated';
        } catch (e) {
          // The object store did not answer: evaluated again at the next pass.
          this.d.log.error({ monitorId: run.monitor_id, jobId: job.id, err: (e as Error).message }, 'monitor run result unreadable; evaluated again later');
          continue;
        }
      }
      if (await settleRun(this.d.db, run, job, outcome, { now: this.now(), maxFailures: this.d.config.monitorMaxFailures, reason })) n++;
    }
    return n;
  }

  /** Monitors on a polygon upload that was deleted are suspended (they could never run again). */
  async suspendOrphans(): Promise<number> {
    const orphans = await this.d.db
      .selectFrom('monitors as m')
      .leftJoin('polygon_uploads as u', 'u.id', 'm.polygon_id')
      .select('m.id')
      .where('m.state', '=', 'active')
      .where('m.polygon_id', 'is not', null)
      .where('u.id', 'is', null)
      .execute();
    for (const o of orphans) {
      await this.d.db.transaction().execute((tx) => suspendMonitor(tx, o.id, 'polygon_deleted', 'the polygon upload this monitor watches (polygon_id) was deleted', this.now()));
    }
    return orphans.length;
  }

  /** The run's GeoJSON; null when it no longer exists (retention swept it). */
  private async readResult(job: JobRow): Promise<{ features?: [] } | null> {
    if (!job.result_key || job.result_deleted_at) return null;
    const obj = await this.d.objects.get(job.result_key);
    if (!obj) return null;
    const chunks: Buffer[] = [];
    for await (const c of obj.body) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }

  private async aoiOf(m: Pick<MonitorRow, 'polygon' | 'polygon_id' | 'account_id'>): Promise<AoiGeometry | null> {
    if (m.polygon) return parseAoiWkt(m.polygon);
    const up = await this.d.db.selectFrom('polygon_uploads').select('aoi_wkt').where('id', '=', m.polygon_id!).where('account_id', '=', m.account_id).executeTakeFirst();
    return up?.aoi_wkt ? parseAoiWkt(up.aoi_wkt) : null;
  }
}
