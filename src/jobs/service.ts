/**
 * The job operations behind the API: submit, preview, get, list, result access. The API
 * layer only parses HTTP and calls these; every rule lives here or below.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db, JobRow } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { JobQueue } from '../queue/port.ts';
import type { CancelNotices } from '../queue/cancelNotices.ts';
import { CatalogError, type SceneCatalog } from '../catalog/index.ts';
import { searchScenes } from './scenes.ts';
import { resolveRequest, type Resolution } from './selection.ts';
import { ApiError } from '../contract/errors.ts';
import type { Family, SubmittableEndpoint } from '../contract/enums.ts';
import type { PreviewResponse, SubmissionBody, Warning } from '../contract/schemas.ts';
import type { Principal } from './accounts.ts';
import { balanceMicros, fromMicros, priceMicros } from './credits.ts';
import { createJob, type NewJob } from './transitions/createJob.ts';
import { cancelJob } from './transitions/cancelJob.ts';
import { reservationMicros, validateSubmission } from './validate.ts';
import type { ValidatedRequest } from './request.ts';
import { capMicros } from './creditCap.ts';
import { parseListQuery } from './listQuery.ts';
import { toJobStatus, toListItem, toSubmissionResponse } from './views.ts';
import { isoNow } from '../time.ts';
import { dialectOf } from '../store/dialect.ts';
import { canonicalJson } from './canonicalJson.ts';
import { resultKindOf } from '../endpoints/index.ts';
import { UploadUnavailable, uploadLookups } from '../uploads/lookup.ts';

export interface JobServiceDeps {
  db: Db;
  config: Config;
  objects: ObjectStore;
  queue: JobQueue;
  catalog: SceneCatalog;
  /** Tells the workers of a cancel at once (they also find it in the store). */
  notices?: CancelNotices;
  /** Told of each job this process canceled (the metrics: no runner settles it). */
  onCanceled?: (jobId: string) => void;
}

/** A preview waits this long for the scene search before answering without coverage. */
const PREVIEW_SEARCH_TIMEOUT_MS = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  /** Scope checks shared by submission and preview (same status codes for both). */
  authorizeSubmission(principal: Principal, endpoint: SubmittableEndpoint): void {
    if (!principal.scopes.has('jobs:write')) throw new ApiError('FORBIDDEN', 'this API key lacks the jobs:write scope');
    if (principal.endpoints && !principal.endpoints.has(endpoint)) {
      throw new ApiError('FORBIDDEN', `this API key may not submit ${endpoint} jobs`);
    }
  }

  /** Cancelling takes jobs:write (checked before the job is looked up), and a key limited to some endpoints cancels only their jobs. */
  authorizeCancel(principal: Principal, endpoint?: string | null): void {
    if (!principal.scopes.has('jobs:write')) throw new ApiError('FORBIDDEN', 'this API key lacks the jobs:write scope');
    if (endpoint && principal.endpoints && !principal.endpoints.has(endpoint)) {
      throw new ApiError('FORBIDDEN', `this API key may not cancel ${endpoint} jobs`);
    }
  }

  authorizeRead(principal: Principal): void {
    if (!principal.scopes.has('jobs:read')) throw new ApiError('FORBIDDEN', 'this API key lacks the jobs:read scope');
  }

  /**
   * Creates a job and reserves its credits. With an Idempotency-Key, a retry of the same
   * request returns the job the first attempt created (no second job, no second charge);
   * the same key with a different request is 409 IDEMPOTENCY_KEY_REUSED.
   */
  async submit(principal: Principal, family: Family, endpoint: SubmittableEndpoint, body: SubmissionBody, idempotencyKey?: string) {
    this.authorizeSubmission(principal, endpoint);
    const { db, config } = this.deps;
    const request = await validateSubmission(endpoint, family, body, config, uploadLookups(db, principal.accountId));
    const reserve = await this.capReservation(request, reservationMicros(request, config), body.max_credits);
    const jobId = randomUUID();
    const now = isoNow();
    const requestHash = createHash('sha256').update(canonicalJson([family, endpoint, body])).digest('hex');

    if (idempotencyKey !== undefined) {
      const previous = await this.byIdempotencyKey(principal, idempotencyKey, requestHash);
      if (previous) return toSubmissionResponse(previous);
    }

    let row: JobRow;
    try {
      row = await this.insertJob(principal.accountId, { jobId, now, endpoint, family, body, request, reserve, idempotencyKey, requestHash });
    } catch (e) {
      // Two retries raced past the lookup: the unique index let one through.
      if (idempotencyKey !== undefined && dialectOf(db).isUniqueViolation(e)) {
        const previous = await this.byIdempotencyKey(principal, idempotencyKey, requestHash);
        if (previous) return toSubmissionResponse(previous);
      }
      throw e;
    }
    await this.deps.queue.enqueue(row.id);
    return toSubmissionResponse(row);
  }

  /**
   * max_credits: 400 when the preview's estimate already exceeds the cap (the catalog is
   * asked only when the polygon's own price is over it); otherwise the job reserves at most
   * the cap, which is the most it may cost (a scene_id job, whose estimate is unknown, too).
   */
  private async capReservation(request: ValidatedRequest, reserve: number, maxCredits: number | undefined): Promise<number> {
    if (maxCredits === undefined) return reserve;
    const cap = capMicros(maxCredits);
    if (reserve <= cap) return reserve;
    const estimate = await this.estimate(request);
    if (estimate !== null && estimate.micros > cap) {
      throw new ApiError(
        'VALIDATION_ERROR',
        `max_credits: the estimated cost of this job, ${fromMicros(estimate.micros)} credits (${round(estimate.areaSqkm, 3)} km²), exceeds max_credits ${fromMicros(cap)}`,
        { estimated_credits: fromMicros(estimate.micros), max_credits: fromMicros(cap) },
      );
    }
    return cap;
  }

  /** The preview's estimate: the selected imagery's area over the AOI at the endpoint's price; null for scene_id input. */
  private async estimate(request: ValidatedRequest): Promise<{ areaSqkm: number; micros: number; resolution: Resolution | null } | null> {
    if (request.pattern === 'scene') return null;
    // The same selection as the job. When the search fails, times out or finds nothing,
    // coverage is omitted and the estimate falls back to the whole polygon.
    const resolution = await this.predict(request);
    const areaSqkm = resolution ? resolution.expectedAreaSqkm : request.areaSqkm;
    return { areaSqkm, micros: priceMicros(areaSqkm, this.deps.config.pricesPerSqkm[request.endpoint]), resolution };
  }

  /**
   * A monitor's run (issue 21): an ordinary job of the account, validated, reserved and
   * queued exactly as a submission is, carrying `monitor_id`. `within` runs in the job's own
   * transaction under the account's lock (the monitor claims its scene and checks its cap
   * there), so the run exists exactly when the job does.
   */
  async submitRun(
    run: { accountId: string; monitorId: string; family: Family; endpoint: SubmittableEndpoint; body: SubmissionBody },
    within: (tx: Db, job: NewJob) => Promise<void>,
  ): Promise<JobRow> {
    const { db, config } = this.deps;
    const request = await validateSubmission(run.endpoint, run.family, run.body, config, uploadLookups(db, run.accountId));
    const reserve = reservationMicros(request, config);
    const requestHash = createHash('sha256').update(canonicalJson([run.family, run.endpoint, run.body])).digest('hex');
    const row = await this.insertJob(
      run.accountId,
      { jobId: randomUUID(), now: isoNow(), endpoint: run.endpoint, family: run.family, body: run.body, request, reserve, requestHash, monitorId: run.monitorId },
      within,
    );
    await this.deps.queue.enqueue(row.id);
    return row;
  }

  private async byIdempotencyKey(principal: Principal, key: string, requestHash: string): Promise<JobRow | null> {
    const row = await this.deps.db
      .selectFrom('jobs')
      .selectAll()
      .where('account_id', '=', principal.accountId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!row) return null;
    if (row.request_hash !== requestHash) {
      // The key is the client's text: the message names the header, never repeats it.
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', `this Idempotency-Key was already used for a different request (job ${row.id})`);
    }
    return row;
  }

  private async insertJob(
    accountId: string,
    j: {
      jobId: string;
      now: string;
      endpoint: SubmittableEndpoint;
      family: Family;
      body: SubmissionBody;
      request: Awaited<ReturnType<typeof validateSubmission>>;
      reserve: number;
      idempotencyKey?: string;
      requestHash: string;
      monitorId?: string;
    },
    within?: (tx: Db, job: NewJob) => Promise<void>,
  ): Promise<JobRow> {
    const { jobId, now, endpoint, family, body, request, reserve } = j;
    return createJob(
      this.deps.db,
      {
        id: jobId,
        account_id: accountId,
        endpoint_id: endpoint,
        family,
        satellite_id: body.satellite_id,
        created_at: now,
        updated_at: now,
        request_params: JSON.stringify(body),
        credits_reserved_micros: reserve,
        credits_used_micros: null,
        area_sqkm: null,
        lat: request.pattern === 'scene' ? null : request.centroid.lat,
        lon: request.pattern === 'scene' ? null : request.centroid.lon,
        coverage: null,
        scene_selection: null,
        warnings: '[]',
        error_code: null,
        error_message: null,
        progress: null,
        result_key: null,
        result_expires_at: null,
        result_deleted_at: null,
        lease_owner: null,
        lease_expires_at: null,
        idempotency_key: j.idempotencyKey ?? null,
        request_hash: j.requestHash,
        monitor_id: j.monitorId ?? null,
        max_credits_micros: body.max_credits === undefined ? null : capMicros(body.max_credits),
      },
      { maxConcurrentJobs: this.deps.config.maxConcurrentJobs },
      within,
    );
  }

  async preview(principal: Principal, family: Family, endpoint: SubmittableEndpoint, body: SubmissionBody): Promise<PreviewResponse> {
    this.authorizeSubmission(principal, endpoint);
    const { db, config } = this.deps;
    let request;
    try {
      // An ais_id changes nothing a preview reports (area, credits): its upload is checked at
      // submission only, its field's rules (ship only, not with tif_id) here as there.
      const lookups = { ...uploadLookups(db, principal.accountId), ais: async (aisId: string) => ({ aisId, fixesKey: '' }) };
      request = await validateSubmission(endpoint, family, body, config, lookups);
    } catch (e) {
      // An unknown or unready polygon_id / tif_id is checked at submission only (spec: Preview).
      if (!(e instanceof UploadUnavailable)) throw e;
      const balance = (await balanceMicros(db, principal.accountId)) ?? 0;
      return {
        endpoint_id: endpoint,
        area_sqkm: null,
        credits: { estimated: null, balance: fromMicros(balance), sufficient: null, ...capFields(body.max_credits, null) },
        warnings: [
          {
            code: 'CREDITS_NOT_ESTIMABLE',
            message: 'Credits cannot be estimated: polygon_id or tif_id does not name a ready upload of this account yet (a submission answers 404 or 409 until it is ready).',
          },
        ],
      };
    }
    const balance = (await balanceMicros(db, principal.accountId)) ?? 0;
    const warnings: Warning[] = [];

    if (request.pattern === 'scene') {
      warnings.push({
        code: 'CREDITS_NOT_ESTIMABLE',
        message: 'Credits cannot be estimated for scene_id input: the scene footprint is only known when the job runs.',
      });
      return {
        endpoint_id: endpoint,
        area_sqkm: null,
        credits: { estimated: null, balance: fromMicros(balance), sufficient: null, ...capFields(body.max_credits, null) },
        warnings,
      };
    }

    const { areaSqkm, micros: estimate, resolution } = (await this.estimate(request))!;
    if (resolution) warnings.push(...resolution.warnings.filter((w) => w.code === 'LOW_AOI_COVERAGE'));
    return {
      endpoint_id: endpoint,
      area_sqkm: round(areaSqkm, 6),
      ...(resolution?.coverage ? { coverage: { ...resolution.coverage, method: 'estimated' as const } } : {}),
      credits: { estimated: fromMicros(estimate), balance: fromMicros(balance), sufficient: balance >= estimate, ...capFields(body.max_credits, estimate) },
      warnings,
    };
  }

  private async predict(request: Parameters<typeof resolveRequest>[0]): Promise<Resolution | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([
        resolveRequest(request, this.deps.catalog, this.deps.config),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), PREVIEW_SEARCH_TIMEOUT_MS);
        }),
      ]);
      return outcome && outcome.ok ? outcome.resolution : null;
    } catch {
      return null; // catalog unreachable: the preview still answers, without coverage
    } finally {
      clearTimeout(timer);
    }
  }

  private async ownJob(principal: Principal, jobId: string): Promise<JobRow> {
    // Another account's job is "not found", never "forbidden": no existence leak.
    const row = UUID.test(jobId)
      ? await this.deps.db
          .selectFrom('jobs')
          .selectAll()
          .where('id', '=', jobId.toLowerCase())
          .where('account_id', '=', principal.accountId)
          .executeTakeFirst()
      : undefined;
    // A UUID is safe to name back; anything else the client sent is not repeated.
    if (!row) throw new ApiError('NOT_FOUND', UUID.test(jobId) ? `no job ${jobId.toLowerCase()}` : 'no job with this job_id (job ids are UUIDs)');
    return row;
  }

  /** The job's row, for the event stream: jobs:read, and 404 unless it is this account's. */
  async ownJobRow(principal: Principal, jobId: string): Promise<JobRow> {
    this.authorizeRead(principal);
    return this.ownJob(principal, jobId);
  }

  async get(principal: Principal, jobId: string) {
    this.authorizeRead(principal);
    return toJobStatus(await this.ownJob(principal, jobId));
  }

  /**
   * Cancels a pending or processing job (failed, CANCELED, uncharged). Idempotent: a job
   * already canceled answers with itself; a job that ended otherwise is 409
   * JOB_NOT_CANCELABLE with its state in `details`.
   */
  async cancel(principal: Principal, jobId: string) {
    this.authorizeCancel(principal);
    const job = await this.ownJob(principal, jobId);
    this.authorizeCancel(principal, job.endpoint_id);
    const canceled = await cancelJob(this.deps.db, job.id, principal.accountId);
    if (canceled) {
      // After the commit: a worker that aborts on the notice finds the job canceled.
      await this.deps.notices?.publish(job.id);
      this.deps.onCanceled?.(job.id);
      return toJobStatus(canceled);
    }
    // It ended before the cancel reached it (or was canceled already): say how.
    const now = await this.ownJob(principal, jobId);
    if (now.status === 'failed' && now.error_code === 'CANCELED') return toJobStatus(now);
    throw new ApiError('JOB_NOT_CANCELABLE', `job ${now.id} is already ${now.status}${now.error_code ? ` (${now.error_code})` : ''}; only pending or processing jobs can be canceled`, {
      job_id: now.id,
      status: now.status,
      error_code: now.error_code,
    });
  }

  async list(principal: Principal, query: Record<string, string | string[] | undefined>) {
    this.authorizeRead(principal);
    const filter = parseListQuery(query);
    let q = this.deps.db.selectFrom('jobs').selectAll().where('account_id', '=', principal.accountId);
    if (filter.statuses) q = q.where('status', 'in', filter.statuses);
    if (filter.endpointIds) q = q.where('endpoint_id', 'in', filter.endpointIds);
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
    return { jobs: rows.map(toListItem) };
  }

  async scenes(principal: Principal, query: Record<string, unknown>) {
    this.authorizeRead(principal);
    try {
      return await searchScenes(this.deps.catalog, query);
    } catch (e) {
      if (e instanceof CatalogError) throw new ApiError('INTERNAL', 'the scene catalog could not be searched; try again later');
      throw e;
    }
  }

  /** Where the result can be downloaded: a signed, expiring URL. */
  async resultUrl(principal: Principal, jobId: string, format: 'geojson' | 'zip'): Promise<string> {
    this.authorizeRead(principal);
    const row = await this.ownJob(principal, jobId);
    const expected = resultKindOf(row.endpoint_id);
    if (format !== expected) throw new ApiError('NOT_FOUND', `the result of a ${row.endpoint_id} job is at result.${expected}`);
    if (row.status === 'failed') throw new ApiError('NOT_FOUND', `job ${row.id} failed (${row.error_code}); it has no result`);
    if (row.status !== 'completed' || !row.result_key) throw new ApiError('NOT_READY', `job ${row.id} is ${row.status}; the result is not ready`);
    if (row.result_deleted_at || (row.result_expires_at && row.result_expires_at <= isoNow())) {
      throw new ApiError('GONE', `the result of job ${row.id} expired at ${row.result_expires_at}; results are kept ${this.deps.config.resultRetentionDays} days after completion`);
    }
    return this.deps.objects.presign(row.result_key, {
      expiresInSeconds: this.deps.config.signedUrlTtlSeconds,
      filename: `${row.endpoint_id}_${row.id}.${expected}`,
      contentType: expected === 'zip' ? 'application/zip' : 'application/geo+json',
    });
  }

  /**
   * Where a job's quicklook or overlay PNG, or its map layer (GeoJSON), can be downloaded: a
   * signed, expiring URL. 404 while the job has none (not completed, failed, or none was made),
   * 410 after the result's retention.
   */
  async pictureUrl(principal: Principal, jobId: string, picture: 'quicklook' | 'overlay' | 'map layer'): Promise<string> {
    this.authorizeRead(principal);
    const row = await this.ownJob(principal, jobId);
    const key = row.status === 'completed' ? { quicklook: row.quicklook_key, overlay: row.overlay_key, 'map layer': row.map_layer_key }[picture] : null;
    if (!key) {
      const why = row.status === 'completed' ? `job ${row.id} has no ${picture}` : `job ${row.id} is ${row.status}; a ${picture} comes with a completed job`;
      throw new ApiError('NOT_FOUND', why);
    }
    if (row.result_deleted_at || (row.result_expires_at && row.result_expires_at <= isoNow())) {
      throw new ApiError('GONE', `the ${picture} of job ${row.id} expired at ${row.result_expires_at}; results are kept ${this.deps.config.resultRetentionDays} days after completion`);
    }
    const layer = picture === 'map layer';
    return this.deps.objects.presign(key, {
      expiresInSeconds: this.deps.config.signedUrlTtlSeconds,
      filename: `${row.endpoint_id}_${row.id}_${layer ? 'map_layer.geojson' : `${picture}.png`}`,
      contentType: layer ? 'application/geo+json' : 'image/png',
    });
  }
}

const round = (x: number, decimals: number) => Math.round(x * 10 ** decimals) / 10 ** decimals;

/** A preview's answer to max_credits (absent when none was given): whether the estimate is over it, null when unknown. */
function capFields(maxCredits: number | undefined, estimateMicros: number | null): { max_credits?: number; exceeds_max_credits?: boolean | null } {
  if (maxCredits === undefined) return {};
  const cap = capMicros(maxCredits);
  return { max_credits: fromMicros(cap), exceeds_max_credits: estimateMicros === null ? null : estimateMicros > cap };
}
