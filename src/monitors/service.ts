/**
 * src/monitors/: recurring AOI monitors — the API's operations (this file), the pure rules,
 * one module per state change (transitions/), the runner that submits and settles runs, the
 * archive watch. May import jobs, catalog, endpoints, geo, contract and the ports.
 *
 * The monitor operations behind the API: create, get, list, patch, delete, preview, runs. A
 * monitor of another account is "not found", as jobs are.
 */
import { randomUUID } from 'node:crypto';
import type { Db, MonitorRow } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { Principal } from '../jobs/accounts.ts';
import type { SceneCatalog } from '../catalog/index.ts';
import { ApiError } from '../contract/errors.ts';
import type { Monitor, MonitorCondition, MonitorCreateBody, MonitorEndpoint, MonitorList, MonitorPatchBody, MonitorPreview, MonitorRunList } from '../contract/monitors.ts';
import type { SuspensionReason } from '../contract/monitors.ts';
import { validateSubmission } from '../jobs/validate.ts';
import { reservationMicros } from '../jobs/validate.ts';
import { fromMicros, toMicros } from '../jobs/credits.ts';
import { uploadLookups } from '../uploads/lookup.ts';
import { bboxOf } from '../geo/index.ts';
import { CONDITION_KEY, isDue, isPeriodEndpoint, monthStart, productTypeOf, runBody, triggerOf } from './rules.ts';
import { monthSpentMicros } from './spending.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_MONITORS_PER_ACCOUNT = 1000;
const PREVIEW_DAYS = 90;

export interface MonitorServiceDeps {
  db: Db;
  config: Config;
  catalog: SceneCatalog;
  now?: () => Date;
}

export class MonitorService {
  private readonly now: () => Date;

  constructor(private readonly d: MonitorServiceDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /** The checks a create and a preview share; returns the validated run request of a run today. */
  private async check(principal: Principal, body: MonitorCreateBody) {
    const endpoint = body.endpoint_id;
    if (principal.endpoints && !principal.endpoints.has(endpoint)) throw new ApiError('FORBIDDEN', `this API key may not submit ${endpoint} jobs`);
    const everyDays = typeof body.trigger === 'object' ? body.trigger.every_days : null;
    if (everyDays !== null && !isPeriodEndpoint(endpoint)) {
      throw new ApiError('VALIDATION_ERROR', `trigger every_days is for newbuilding, disappearbuilding and timeseries; ${endpoint} runs on each new scene ("new_scene")`);
    }
    checkCondition(endpoint, body.condition);
    if (body.polygon !== undefined && body.polygon_id !== undefined) throw new ApiError('VALIDATION_ERROR', 'polygon and polygon_id are mutually exclusive: give one of them');
    // A run is a submission: the same validation, on a run made today.
    const sample = runBody(
      { endpoint_id: endpoint, polygon: body.polygon ?? null, polygon_id: body.polygon_id ?? null, orbit_direction: body.orbit_direction ?? null, every_days: everyDays },
      { startTime: this.now().toISOString(), orbitDirection: body.orbit_direction ?? 'ascending' },
    );
    if (body.polygon === undefined && body.polygon_id === undefined) throw new ApiError('VALIDATION_ERROR', 'a monitor needs an area: polygon or polygon_id');
    const request = await validateSubmission(endpoint, body.family, sample, this.d.config, uploadLookups(this.d.db, principal.accountId));
    if (request.pattern === 'scene' || request.pattern === 'image') throw new ApiError('VALIDATION_ERROR', 'a monitor needs an area: polygon or polygon_id');
    return { request, everyDays };
  }

  async create(principal: Principal, body: MonitorCreateBody): Promise<Monitor> {
    const { request, everyDays } = await this.check(principal, body);
    const { db } = this.d;
    const count = await db.selectFrom('monitors').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', principal.accountId).executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_MONITORS_PER_ACCOUNT) throw new ApiError('VALIDATION_ERROR', `an account may have at most ${MAX_MONITORS_PER_ACCOUNT} monitors; delete one first`);
    const [x0, y0, x1, y1] = bboxOf(request.aoi);
    const at = this.now().toISOString();
    const row = await db
      .insertInto('monitors')
      .values({
        id: randomUUID(),
        account_id: principal.accountId,
        endpoint_id: body.endpoint_id,
        family: body.family,
        polygon: body.polygon ?? null,
        polygon_id: body.polygon_id ?? null,
        orbit_direction: body.orbit_direction ?? null,
        trigger: everyDays === null ? 'new_scene' : 'every_days',
        every_days: everyDays,
        condition: JSON.stringify(body.condition),
        max_credits_per_month_micros: toMicros(body.max_credits_per_month),
        state: 'active',
        min_lon: x0!,
        min_lat: y0!,
        max_lon: x1!,
        max_lat: y1!,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.view(row);
  }

  async get(principal: Principal, id: string): Promise<Monitor> {
    return this.view(await this.own(principal, id));
  }

  async list(principal: Principal): Promise<MonitorList> {
    const rows = await this.d.db.selectFrom('monitors').selectAll().where('account_id', '=', principal.accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute();
    return { monitors: await Promise.all(rows.map((r) => this.view(r))) };
  }

  /** Pause, resume (also from suspended: the reason and failure streak are cleared), change the condition or the cap. */
  async patch(principal: Principal, id: string, body: MonitorPatchBody): Promise<Monitor> {
    const m = await this.own(principal, id);
    if (body.condition) checkCondition(m.endpoint_id as MonitorEndpoint, body.condition);
    const at = this.now().toISOString();
    const row = await this.d.db
      .updateTable('monitors')
      .set({
        ...(body.state === 'paused' ? { state: 'paused' } : {}),
        ...(body.state === 'active' ? { state: 'active', suspended_reason: null, suspended_message: null, consecutive_failures: 0 } : {}),
        ...(body.condition ? { condition: JSON.stringify(body.condition) } : {}),
        ...(body.max_credits_per_month !== undefined ? { max_credits_per_month_micros: toMicros(body.max_credits_per_month) } : {}),
        updated_at: at,
      })
      .where('id', '=', m.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.view(row);
  }

  /** Deletes the monitor and its run records; its jobs stay (they are the account's jobs). */
  async delete(principal: Principal, id: string): Promise<void> {
    const m = await this.own(principal, id);
    await this.d.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('monitor_runs').where('monitor_id', '=', m.id).execute();
      await tx.deleteFrom('monitors').where('id', '=', m.id).execute();
    });
  }

  async runs(principal: Principal, id: string): Promise<MonitorRunList> {
    const m = await this.own(principal, id);
    const rows = await this.d.db.selectFrom('monitor_runs').selectAll().where('monitor_id', '=', m.id).orderBy('scene_time', 'desc').limit(100).execute();
    return {
      runs: rows.map((r) => ({
        scene_id: r.scene_id,
        acquired_at: r.scene_time,
        status: r.status as MonitorRunList['runs'][number]['status'],
        job_id: r.job_id,
        summary: r.summary ? JSON.parse(r.summary) : null,
        reason: r.reason,
        created_at: r.created_at,
      })),
    };
  }

  /**
   * What one run costs at most (its reservation: the AOI's area at the endpoint's price) and
   * how many runs the trigger would have made over the last 90 days of the catalog.
   */
  async preview(principal: Principal, body: MonitorCreateBody): Promise<MonitorPreview> {
    const { request, everyDays } = await this.check(principal, body);
    const perRun = reservationMicros(request, this.d.config);
    const now = this.now();
    const warnings: MonitorPreview['warnings'] = [];
    let runs = 0;
    try {
      const scenes = await this.d.catalog.search({
        intersects: request.aoi,
        start: new Date(now.getTime() - PREVIEW_DAYS * 86_400_000),
        end: now,
        productTypes: [productTypeOf(body.endpoint_id, body.family)],
        ...(body.orbit_direction ? { orbitDirection: body.orbit_direction } : {}),
      });
      let last: string | null = null;
      for (const s of scenes) {
        if (!isDue({ trigger: everyDays === null ? 'new_scene' : 'every_days', every_days: everyDays, last_scene_time: last }, s.startTime)) continue;
        runs++;
        last = s.startTime;
      }
    } catch {
      warnings.push({ code: 'CATALOG_UNAVAILABLE', message: 'The scene catalog could not be searched; runs_last_90_days is 0 for that reason.' });
    }
    return {
      endpoint_id: body.endpoint_id,
      area_sqkm: Math.round(request.areaSqkm * 1e6) / 1e6,
      credits_per_run: fromMicros(perRun),
      runs_last_90_days: runs,
      credits_last_90_days: fromMicros(perRun * runs),
      max_credits_per_month: body.max_credits_per_month,
      warnings,
    };
  }

  private async own(principal: Principal, id: string): Promise<MonitorRow> {
    const row = UUID.test(id)
      ? await this.d.db.selectFrom('monitors').selectAll().where('id', '=', id.toLowerCase()).where('account_id', '=', principal.accountId).executeTakeFirst()
      : undefined;
    if (!row) throw new ApiError('NOT_FOUND', UUID.test(id) ? `no monitor ${id.toLowerCase()}` : 'no monitor with this monitor_id (monitor ids are UUIDs)');
    return row;
  }

  private async view(row: MonitorRow): Promise<Monitor> {
    const { db } = this.d;
    const counts = await db
      .selectFrom('monitor_runs')
      .select((eb) => [
        eb.fn.count<number>('job_id').as('total'),
        eb.fn.sum<number>(eb.case().when('status', '=', 'triggered').then(1).else(0).end()).as('triggered'),
      ])
      .where('monitor_id', '=', row.id)
      .executeTakeFirstOrThrow();
    return {
      monitor_id: row.id,
      endpoint_id: row.endpoint_id,
      family: row.family,
      polygon: row.polygon,
      polygon_id: row.polygon_id,
      orbit_direction: row.orbit_direction,
      trigger: triggerOf(row),
      condition: JSON.parse(row.condition) as MonitorCondition,
      max_credits_per_month: fromMicros(row.max_credits_per_month_micros),
      state: row.state as Monitor['state'],
      suspended_reason: row.suspended_reason as SuspensionReason | null,
      suspended_message: row.suspended_message,
      runs: { total: Number(counts.total ?? 0), triggered: Number(counts.triggered ?? 0), consecutive_failures: Number(row.consecutive_failures) },
      last_scene: row.last_scene_id && row.last_scene_time ? { scene_id: row.last_scene_id, acquired_at: row.last_scene_time } : null,
      credits_spent_this_month: fromMicros(await monthSpentMicros(db, row.id, monthStart(this.now()))),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}

/** Exactly the condition member of the endpoint (ship: min_count, …). */
function checkCondition(endpoint: MonitorEndpoint, condition: MonitorCondition): void {
  const key = CONDITION_KEY[endpoint];
  const given = Object.keys(condition);
  if (given.length !== 1 || given[0] !== key) throw new ApiError('VALIDATION_ERROR', `the condition of a ${endpoint} monitor is {"${key}": …}, and only that`);
}
