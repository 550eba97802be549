/**
 * Runs one job: claim → resolve input → analyse → quicklook → write result → settle. Every failure
 * ends the job in `failed` with a code (never stuck in `processing`); a lease with
 * heartbeats lets another process recover the job if this one dies; close() aborts the
 * running analyses and puts their jobs back in the queue.
 */
import { randomUUID } from 'node:crypto';
import type { Db, JobRow } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { ObjectStore } from '../objects/port.ts';
import { ApiError, JobFailure } from '../contract/errors.ts';
import type { Family, SubmittableEndpoint } from '../contract/enums.ts';
import type { SubmissionBody } from '../contract/schemas.ts';
import type { AnalysisRegistry } from '../endpoints/analysisRegistry.ts';
import type { AnalysisRequest, ResolvedInput } from '../analysis/port.ts';
import { CatalogError, earlierOfTrack, type SceneCatalog } from '../catalog/index.ts';
import { centroidLonLat } from '../geo/index.ts';
import { validateSubmission } from '../jobs/validate.ts';
import type { ValidatedRequest } from '../jobs/request.ts';
import { resolveRequest } from '../jobs/selection.ts';
import { uploadLookups } from '../uploads/lookup.ts';
import { withLocalImage } from '../uploads/imageFile.ts';
import { readUploadFeatures } from '../uploads/features.ts';
import { resultKindOf } from '../endpoints/index.ts';
import { claimJob, completeJob, failJob, heartbeat, returnJob } from '../jobs/transitions.ts';
import { coverageOnJob } from '../jobs/views.ts';
import { creditCapFailure } from '../jobs/creditCap.ts';
import type { JobSettled } from '../metrics.ts';
import type { Logger } from '../logger.ts';
import { JobWatch, type JobLoss } from './jobWatch.ts';
import type { CancelNotices } from '../queue/cancelNotices.ts';
import type { TileRunner } from '../analysis/port.ts';
import { deleteQuicklook, quicklookBlocksFor, quicklookSoftly, storeQuicklook } from './quicklook.ts';
import { matchAisInOutput } from './aisMatch.ts';

export interface RunnerDeps {
  db: Db;
  config: Config;
  objects: ObjectStore;
  registry: AnalysisRegistry;
  catalog: SceneCatalog;
  log: Logger;
  workerId?: string;
  leaseSeconds?: number;
  /** How often the store is asked whether a running job was canceled or taken (ms; default 500). */
  watchIntervalMs?: number;
  /** The API's cancel notices: a running job is aborted as soon as one arrives (the store check stays the guarantee). */
  notices?: CancelNotices;
  /** Told when this runner completes or fails a job (the metrics); not for requeued or lost jobs. */
  onSettled?: (settled: JobSettled) => void;
  /**
   * Scaled out: where a job's tile tasks may run besides this process (every worker, through the
   * queue: queue/tiles.ts). `discard` deletes the job's kept tile results once the job ended.
   */
  tiles?: { forJob(jobId: string): TileRunner & { discard(): Promise<void> } };
}

/** Where an attempt of a job writes its result (`results/{job_id}.{attempt}.{geojson|zip}`). */
export function resultKey(jobId: string, attempt: number, kind: string): string {
  return `results/${jobId}.${attempt}.${kind}`;
}

export class JobRunner {
  readonly workerId: string;
  private readonly leaseSeconds: number;
  /** Aborted by close(): every running analysis sees it through its job's signal. */
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<void>>();
  /** Jobs this runner holds the lease of (claimed, not yet let go). */
  private readonly held = new Set<string>();
  /** Resolves the queue handlers still waiting when close() gives up on their jobs. */
  private readonly releases = new Set<() => void>();
  /** Sees a held job canceled (or taken by recovery) and aborts its analysis. */
  private readonly watch: JobWatch;
  private readonly stopNotices: () => void;

  constructor(private readonly deps: RunnerDeps) {
    this.workerId = deps.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
    this.leaseSeconds = deps.leaseSeconds ?? 60;
    this.watch = new JobWatch(deps.db, this.workerId, deps.watchIntervalMs ?? 500, (e) => deps.log.error({ err: String(e) }, 'job watch failed'));
    this.stopNotices = deps.notices?.subscribe((jobId) => this.watch.canceled(jobId)) ?? (() => {});
  }

  /**
   * Handler for the queue: runs the job if this worker wins the claim. Resolves when the
   * job ends, or when close() gives up on it at its deadline (so the queue can close).
   */
  readonly run = (jobId: string): Promise<void> => {
    const job = this.runJob(jobId);
    this.running.add(job);
    const done = job.finally(() => this.running.delete(job));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    this.releases.add(release);
    return Promise.race([done, released]).finally(() => this.releases.delete(release));
  };

  /**
   * Stops the worker: claims no more jobs and aborts the running analyses (the signal
   * reaches the detectors and their tasks on the analysis pool). Each interrupted job goes
   * back to pending for the next start. Resolves once every job has let go, or after
   * `graceMs`: then each job still held (an analysis that did not stop when aborted) is put
   * back to pending at once, its attempt counted, and its queue handler released. Returns
   * the ids of the jobs put back that way.
   */
  async close(graceMs = Number.POSITIVE_INFINITY): Promise<string[]> {
    this.stopping.abort(new Error('the worker is shutting down'));
    this.stopNotices();
    const settled = Promise.allSettled([...this.running]).then(() => false);
    let timer: NodeJS.Timeout | undefined;
    const late = Number.isFinite(graceMs)
      ? await Promise.race([settled, new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))])
      : await settled;
    clearTimeout(timer);
    if (!late) return [];
    const forced: string[] = [];
    for (const jobId of [...this.held]) {
      const back = await returnJob(this.deps.db, jobId, this.workerId, { keepAttempt: true }).catch(() => null);
      if (back) forced.push(jobId);
      this.deps.log.error({ jobId, applied: back !== null, graceMs }, 'job requeued: its analysis did not stop within the shutdown deadline');
    }
    for (const release of this.releases) release();
    return forced;
  }

  private async runJob(jobId: string): Promise<void> {
    const { db, log } = this.deps;
    if (this.stopping.signal.aborted) return;
    const job = await claimJob(db, jobId, this.workerId, this.leaseSeconds);
    if (!job) return;
    this.held.add(jobId);
    log.info({ jobId, endpoint: job.endpoint_id, attempt: job.attempts }, 'job started');

    let progress = 0;
    // The job's signal aborts when the worker stops, when the client cancels the job, or when
    // the job is taken from this worker (the same signal shutdown uses).
    const abort = new AbortController();
    let taken: JobLoss | null = null;
    const unwatch = this.watch.watch(jobId, (loss) => {
      taken = loss;
      log.info({ jobId, loss }, loss === 'canceled' ? 'job canceled: aborting its analysis' : 'job taken by another worker: aborting its analysis');
      abort.abort(new Error(loss === 'canceled' ? 'the job was canceled' : 'the job passed to another worker'));
    });
    const stop = () => abort.abort(this.stopping.signal.reason);
    this.stopping.signal.addEventListener('abort', stop, { once: true });
    if (this.stopping.signal.aborted) stop(); // closed while the claim was on its way
    // The job's row is written one heartbeat at a time, in the order they were made, each with
    // the progress of its moment: on PostgreSQL two writes in flight on two pooled connections
    // may commit in either order, and a delayed one set an older progress over a newer (the job's
    // event log went 95, then 5: test/worker/progressOrder.test.ts).
    let writing: Promise<unknown> = Promise.resolve();
    const beatNow = (): Promise<boolean> => {
      const now = progress;
      const write = writing.then(() => heartbeat(db, jobId, this.workerId, this.leaseSeconds, now));
      writing = write.catch(() => {});
      return write;
    };
    const beat = setInterval(() => {
      beatNow().then(
        (mine) => {
          if (mine) return;
          taken ??= 'lost'; // the job was taken from us (recovered elsewhere, or canceled): stop.
          abort.abort();
        },
        (e) => log.error({ jobId, err: String(e) }, 'heartbeat failed'),
      );
    }, (this.leaseSeconds * 1000) / 3);
    beat.unref();

    // Progress is written at most once a second (and with every heartbeat), so polling
    // clients see it move without the detector hammering the store.
    let lastWrite = 0;
    let trailing: NodeJS.Timeout | null = null;
    const writeProgress = () => {
      trailing = null;
      lastWrite = Date.now();
      void beatNow().catch(() => {});
    };
    const reportProgress = (p: number) => {
      progress = p;
      if (trailing) return;
      const wait = lastWrite + 1000 - Date.now();
      if (wait <= 0) writeProgress();
      else trailing = setTimeout(writeProgress, wait);
    };

    const tiles = this.deps.tiles?.forJob(jobId);
    // A job handed back (shutdown, lease lost) keeps its tiles' results for its next attempt.
    let keepTiles = false;
    const started = Date.now();
    const settled = (outcome: JobSettled['outcome'], errorCode: string | null) =>
      this.deps.onSettled?.({ endpointId: job.endpoint_id ?? 'none', outcome, errorCode, seconds: (Date.now() - started) / 1000 });
    try {
      if (await this.execute(job, reportProgress, abort.signal, tiles)) settled('completed', null);
    } catch (e) {
      if (this.stopping.signal.aborted) {
        // Not the job's failure: it runs again on the next start, uncharged until then.
        keepTiles = true;
        const requeued = await returnJob(db, jobId, this.workerId);
        log.info({ jobId, applied: requeued !== null }, 'job requeued: the worker is shutting down');
        return;
      }
      if (taken === 'canceled') {
        log.info({ jobId }, 'job canceled: its analysis stopped');
        return;
      }
      if (taken) {
        keepTiles = true;
        log.info({ jobId }, 'job abandoned: its lease passed to another worker');
        return;
      }
      const failure =
        e instanceof JobFailure ? e : new JobFailure('PROCESSING_ERROR', e instanceof Error ? e.message : String(e));
      if (!(e instanceof JobFailure)) log.error({ jobId, err: e instanceof Error ? e.stack : String(e) }, 'job crashed');
      const failed = await failJob(db, jobId, failure, { workerId: this.workerId });
      log.info({ jobId, code: failure.code, applied: failed !== null }, 'job failed');
      if (failed) settled('failed', failure.code);
    } finally {
      unwatch();
      this.held.delete(jobId);
      this.stopping.signal.removeEventListener('abort', stop);
      clearInterval(beat);
      if (trailing) clearTimeout(trailing);
      if (tiles && !keepTiles) void tiles.discard().catch(() => {});
    }
  }

  /** Resolves true when this runner completed the job, false when it was no longer ours. */
  private async execute(job: JobRow, setProgress: (p: number) => void, signal: AbortSignal, tiles?: TileRunner): Promise<boolean> {
    const { config, objects, registry, db, log, catalog } = this.deps;
    const endpoint = job.endpoint_id as SubmittableEndpoint;
    const family = job.family as Family;
    const params = JSON.parse(job.request_params ?? '{}') as SubmissionBody;

    // The rules are checked again when the job runs: configuration (limits) may have
    // changed since submission (spec: "validation failing while the job runs"), and the
    // upload a polygon_id or tif_id names may have been deleted.
    let request: ValidatedRequest;
    try {
      request = await validateSubmission(endpoint, family, params, config, uploadLookups(db, job.account_id));
    } catch (e) {
      if (e instanceof ApiError) throw new JobFailure('VALIDATION_ERROR', e.message);
      throw e;
    }

    let outcome;
    try {
      outcome = await resolveRequest(request, catalog, config);
    } catch (e) {
      if (e instanceof CatalogError) {
        log.error({ jobId: job.id, err: e.message }, 'scene catalog unavailable');
        throw new JobFailure('CATALOG_UNAVAILABLE', e.message);
      }
      throw e;
    }
    if (!outcome.ok) throw new JobFailure(outcome.code, outcome.message);
    const { resolution } = outcome;
    // max_credits: a job whose imagery already costs more is not analysed at all.
    const pricePerSqkm = config.pricesPerSqkm[endpoint] ?? 0;
    const overCap = creditCapFailure(job.max_credits_micros, resolution.expectedAreaSqkm, pricePerSqkm);
    if (overCap) throw overCap;
    setProgress(5);

    // A job claimed as the worker stops does not start its analysis.
    signal.throwIfAborted();
    const module = registry.get(endpoint);
    if (!module) {
      throw new JobFailure('NOT_IMPLEMENTED', `${endpoint} analysis is not available in this version of sarwatch; the job was not charged`);
    }
    const polygonId = request.pattern === 'scene' ? null : request.polygonId;
    const { input } = resolution;
    const analyse = (analysed: typeof input) =>
      module.run(
        {
          jobId: job.id,
          endpointId: endpoint,
          family,
          input: analysed,
          maxRequestBytes: config.maxRequestBytes,
          ...(polygonId ? { upload: { polygonId, features: () => readUploadFeatures(db, objects, job.account_id, polygonId) } } : {}),
          ...(endpoint === 'ship' ? shipStack(catalog, analysed, request.includeFixedStructures === true) : {}),
          ...(request.nearShoreDetection !== undefined ? { nearShore: request.nearShoreDetection } : {}),
        },
        { reportProgress: (p) => setProgress(5 + Math.round(p * 0.9)), signal, ...(tiles ? { tiles } : {}), ...withQuicklookBlocks(quicklookBlocksFor(endpoint, analysed)) },
      );
    // The quicklook reads the same imagery after the analysis (an uploaded image while its
    // local copy is still there); its failure costs the job nothing (worker/quicklook.ts).
    const analyseAndLook = async (analysed: typeof input) => {
      let output = await analyse(analysed);
      // ship with ais_id: detections matched to the AIS vessels before the quicklook draws them.
      if (request.ais) {
        const matched = await matchAisInOutput(objects, request.ais, analysed, output);
        output = matched.output;
        if (matched.summary) log.info({ jobId: job.id, ...matched.summary }, 'AIS matched');
      }
      const images = await quicklookSoftly({ jobId: job.id, endpointId: endpoint, family, input: analysed, result: output.result, signal, ...(output.quicklookCopy ? { pooled: output.quicklookCopy } : {}) }, log);
      return { output, images };
    };
    // An uploaded image (tif_id) is read from a local copy for the run (uploads/imageFile.ts).
    const { output, images } =
      input.kind === 'image'
        ? await withLocalImage(objects, config.dataDir, job.id, input.key, (file) => analyseAndLook({ ...input, file }))
        : await analyseAndLook(input);

    // The endpoint's result kind says what the detector hands back and how it is served.
    const kind = resultKindOf(endpoint);
    // The measured area is what is charged: over the cap, the result is not kept.
    const areaSqkm = output.measured?.areaSqkm ?? resolution.expectedAreaSqkm;
    const overCapMeasured = creditCapFailure(job.max_credits_micros, areaSqkm, pricePerSqkm);
    if (overCapMeasured) throw overCapMeasured;
    const body = kind === 'zip' ? (output.archive ? Buffer.from(output.archive) : undefined) : output.result && JSON.stringify(output.result);
    if (body === undefined) throw new JobFailure('PROCESSING_ERROR', `the ${endpoint} analysis returned no ${kind} result`);
    // One object per attempt: a worker that ran on after losing its lease writes (and, its
    // completion refused, deletes) its own object, never the one the completing attempt wrote.
    const key = resultKey(job.id, Number(job.attempts), kind);
    try {
      await objects.put(key, body, kind === 'zip' ? 'application/zip' : 'application/geo+json');
    } catch (e) {
      log.error({ jobId: job.id, err: String(e) }, 'result write failed');
      throw new JobFailure('STORAGE_ERROR', 'result could not be stored');
    }
    const quicklook = await storeQuicklook(objects, { id: job.id, attempt: Number(job.attempts) }, images, log);
    const centroid = centroidLonLat(resolution.input.kind === 'scene' ? resolution.input.scene.footprint : resolution.input.aoi);
    const completed = await completeJob(db, job.id, this.workerId, {
      resultKey: key,
      areaSqkm,
      lat: centroid.lat,
      lon: centroid.lon,
      coverage: coverageOnJob(output.measured ? output.measured.coverage : resolution.coverage),
      sceneSelection: resolution.sceneSelection,
      warnings: [...resolution.warnings, ...(output.warnings ?? [])],
      pricePerSqkm,
      retentionDays: config.resultRetentionDays,
      quicklook,
    });
    if (!completed) {
      // The job was recovered by someone else while we ran: our result is not theirs.
      await objects.delete(key);
      await deleteQuicklook(objects, quicklook);
      return false;
    }
    log.info({ jobId: job.id, areaSqkm: completed.area_sqkm, features: output.result?.features.length ?? null }, 'job completed');
    return true;
  }
}

/**
 * A ship job compares its detections with the track's earlier acquisitions in the catalog
 * (issue 23 §3, fixed structures); an uploaded image has no track. A catalog that stopped
 * answering since the scene was chosen fails the job as at selection.
 */
function shipStack(catalog: SceneCatalog, input: ResolvedInput, includeFixedStructures: boolean): Pick<AnalysisRequest, 'earlierAcquisitions' | 'includeFixedStructures'> {
  if (input.kind !== 'scene' && input.kind !== 'nearest') return { includeFixedStructures };
  const sceneId = input.scene.sceneId;
  return {
    includeFixedStructures,
    earlierAcquisitions: async (limit, days) => {
      try {
        return await earlierOfTrack(catalog, sceneId, { limit, days });
      } catch (e) {
        if (e instanceof CatalogError) throw new JobFailure('CATALOG_UNAVAILABLE', e.message);
        throw e;
      }
    },
  };
}

/** The analysis context's quicklookBlocks when there are any (an absent key otherwise). */
function withQuicklookBlocks(blocks: ReturnType<typeof quicklookBlocksFor>): { quicklookBlocks?: NonNullable<ReturnType<typeof quicklookBlocksFor>> } {
  return blocks ? { quicklookBlocks: blocks } : {};
}
