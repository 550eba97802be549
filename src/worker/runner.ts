/**
 * Runs one job: claim → resolve input → analyse → write result → settle. Every failure
 * ends the job in `failed` with a code (never stuck in `processing`); a lease with
 * heartbeats lets another process recover the job if this one dies.
 */
import { randomUUID } from 'node:crypto';
import type { Db, JobRow } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { ObjectStore } from '../objects/port.ts';
import { JobFailure } from '../contract/errors.ts';
import type { EndpointId, Family, SubmittableEndpoint } from '../contract/enums.ts';
import type { AnalysisRegistry } from '../analysis/registry.ts';
import { tryParseProductName } from '../catalog/productName.ts';
import { claimJob, completeJob, failJob, heartbeat } from '../jobs/transitions.ts';

export interface Logger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RunnerDeps {
  db: Db;
  config: Config;
  objects: ObjectStore;
  registry: AnalysisRegistry;
  log: Logger;
  workerId?: string;
  leaseSeconds?: number;
}

export class JobRunner {
  readonly workerId: string;
  private readonly leaseSeconds: number;

  constructor(private readonly deps: RunnerDeps) {
    this.workerId = deps.workerId ?? `worker-${randomUUID().slice(0, 8)}`;
    this.leaseSeconds = deps.leaseSeconds ?? 60;
  }

  /** Handler for the queue: runs the job if this worker wins the claim. */
  readonly run = async (jobId: string): Promise<void> => {
    const { db, log } = this.deps;
    const job = await claimJob(db, jobId, this.workerId, this.leaseSeconds);
    if (!job) return;
    log.info({ jobId, endpoint: job.endpoint_id, attempt: job.attempts }, 'job started');

    let progress = 0;
    const abort = new AbortController();
    const beat = setInterval(() => {
      heartbeat(db, jobId, this.workerId, this.leaseSeconds, progress).then(
        (mine) => {
          if (!mine) abort.abort(); // the job was taken from us (recovered elsewhere): stop.
        },
        (e) => log.error({ jobId, err: String(e) }, 'heartbeat failed'),
      );
    }, (this.leaseSeconds * 1000) / 3);
    beat.unref();

    // Progress is written at most once a second (and with every heartbeat), so polling
    // clients see it move without the detector hammering the store.
    let lastWrite = 0;
    const reportProgress = (p: number) => {
      progress = p;
      if (Date.now() - lastWrite < 1000) return;
      lastWrite = Date.now();
      void heartbeat(db, jobId, this.workerId, this.leaseSeconds, progress).catch(() => {});
    };

    try {
      await this.execute(job, reportProgress, abort.signal);
    } catch (e) {
      if (abort.signal.aborted) {
        log.info({ jobId }, 'job abandoned: its lease passed to another worker');
        return;
      }
      const failure =
        e instanceof JobFailure ? e : new JobFailure('PROCESSING_ERROR', e instanceof Error ? e.message : String(e));
      if (!(e instanceof JobFailure)) log.error({ jobId, err: e instanceof Error ? e.stack : String(e) }, 'job crashed');
      const failed = await failJob(db, jobId, failure, { workerId: this.workerId });
      log.info({ jobId, code: failure.code, applied: failed !== null }, 'job failed');
    } finally {
      clearInterval(beat);
    }
  };

  private async execute(job: JobRow, setProgress: (p: number) => void, signal: AbortSignal): Promise<void> {
    const { config, objects, registry, db, log } = this.deps;
    const endpoint = job.endpoint_id as EndpointId;
    const params = JSON.parse(job.request_params ?? '{}') as Record<string, unknown>;

    // The analyze family accepts any scene_id at submission (spec: Endpoints, family
    // differences); one that is not a GRD product fails here.
    if (typeof params.scene_id === 'string') {
      const parsed = tryParseProductName(params.scene_id);
      if (!parsed || parsed.productType !== 'GRD') {
        throw new JobFailure(
          'SCENE_NOT_FOUND',
          parsed
            ? `scene_id names a ${parsed.productType} product; only Sentinel-1 GRD scenes can be analysed`
            : 'scene_id is not a Sentinel-1 product name that can be resolved',
        );
      }
    }

    const module = registry.get(endpoint);
    if (!module) {
      throw new JobFailure('NOT_IMPLEMENTED', `${endpoint} analysis is not available in this version of sarwatch; the job was not charged`);
    }
    const output = await module.run(
      { jobId: job.id, endpointId: endpoint, family: job.family as Family, params },
      { reportProgress: (p) => setProgress(p), signal },
    );
    const key = `results/${job.id}.geojson`;
    try {
      await objects.put(key, JSON.stringify(output.result), 'application/geo+json');
    } catch (e) {
      log.error({ jobId: job.id, err: String(e) }, 'result write failed');
      throw new JobFailure('STORAGE_ERROR', 'result could not be stored');
    }
    const completed = await completeJob(db, job.id, this.workerId, {
      resultKey: key,
      areaSqkm: output.areaSqkm,
      lat: output.lat,
      lon: output.lon,
      coverage: output.coverage,
      sceneSelection: output.sceneSelection,
      warnings: output.warnings,
      pricePerSqkm: config.pricesPerSqkm[endpoint as SubmittableEndpoint] ?? 0,
      retentionDays: config.resultRetentionDays,
    });
    if (!completed) {
      // The job was recovered by someone else while we ran: our result is not theirs.
      await objects.delete(key);
      return;
    }
    log.info({ jobId: job.id, areaSqkm: output.areaSqkm, features: output.result.features.length }, 'job completed');
  }
}
