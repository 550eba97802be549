/**
 * Composition root: builds the store, object store, queue, worker and API from the
 * configuration. `sarwatch serve` and the tests start the service through here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { openStore, type Db } from './store/index.ts';
import { pendingMigrations } from './store/migrate.ts';
import { openObjectStore, type ObjectStore } from './objects/index.ts';
import { openQueue, type JobQueue } from './queue/index.ts';
import { BullmqQueue } from './queue/bullmq.ts';
import { MemoryCancelNotices } from './queue/cancelNotices.ts';
import { RedisCancelNotices } from './queue/redisCancelNotices.ts';
import { BullmqTileQueue } from './queue/tiles.ts';
import { JobService } from './jobs/service.ts';
import { PolygonUploadService } from './uploads/service.ts';
import { TifUploadService } from './uploads/tifService.ts';
import { AisUploadService } from './uploads/aisService.ts';
import { isoNow } from './time.ts';
import { buildApi } from './api/app.ts';
import type { Clock } from './api/rateLimit.ts';
import { brokerProbe, objectStoreProbe, storeProbe, workerProbe } from './probes.ts';
import { ensurePrivateDir } from './privateFiles.ts';
import { JobRunner } from './worker/runner.ts';
import type { Logger } from './logger.ts';
import { startMaintenance } from './worker/maintenance.ts';
import { jobIsProcessing } from './worker/jobWatch.ts';
import { serveMetrics } from './worker/metricsServer.ts';
import { runWhenFree } from './store/leases.ts';
import { defaultRegistry, type AnalysisRegistry } from './endpoints/analysisRegistry.ts';
import { analysisThreads, closeAnalysisPool, keepAnalysisThreadsWarm, runTileCall } from './analysis/engine/pool.ts';
import { LocalSceneCatalog, type IndexArchiveOptions, type IndexArchiveResult, type SceneCatalog, type SceneRecord } from './catalog/index.ts';
import { watchArchive, type ArchiveWatch } from './catalog/local/watchArchive.ts';
import { MonitorService } from './monitors/service.ts';
import { MonitorRunner } from './monitors/runner.ts';
import { startMonitorDuties } from './monitors/duties.ts';
import { linkSamples } from './catalog/archive.ts';
import { openCatalogProvider } from './catalog/providers/index.ts';
import { setRemoteAccess } from './imagery/remote/access.ts';
import { SqlSceneIndexStore } from './store/sceneIndexStore.ts';
import { VERSION } from './version.ts';
import { createMetrics } from './metrics.ts';
import { sharedRateLimits } from './api/sharedLimits.ts';
import { SecretBox } from './events/secretBox.ts';
import { WebhookService } from './events/webhooks.ts';
import { openDeliveryQueue } from './events/deliveryQueue/index.ts';
import { startWebhookDispatch } from './events/dispatcher.ts';

export function storeUrl(config: Config): string {
  return config.databaseUrl || `sqlite:${path.join(config.dataDir, 'sarwatch.db')}`;
}

/** A random secret kept in the data directory, so signed URLs survive restarts and the CLI can share it. */
export function loadOrCreateSecret(dataDir: string, name: string): Buffer {
  const file = path.join(dataDir, name);
  ensurePrivateDir(dataDir);
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const secret = randomBytes(32);
    fs.writeFileSync(file, secret.toString('base64'), { mode: 0o600, flag: 'wx' });
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  }
}

/** Opens the store; `migrate: false` (the api and worker roles) refuses a schema that `sarwatch migrate` has not brought up to date. */
export async function openDb(config: Config, opts: { migrate?: boolean; sqliteBusyTimeoutMs?: number } = {}): Promise<Db> {
  const db = await openStore(storeUrl(config), { poolSize: config.databasePoolSize, migrate: opts.migrate ?? true, sqliteBusyTimeoutMs: opts.sqliteBusyTimeoutMs });
  if (opts.migrate === false) {
    const pending = await pendingMigrations(db);
    if (pending.length) {
      await db.destroy();
      throw new Error(`the database schema is behind this version (missing ${pending.join(', ')}); run \`sarwatch migrate\` first`);
    }
  }
  return db;
}

/**
 * The scene catalog of CATALOG_PROVIDER (docs/catalogs.md): a STAC API (any, Planetary
 * Computer, Copernicus Data Space), or the local archive folder (indexed into the store;
 * `reindex` brings it up to date incrementally). The provider's remote access (signing,
 * tokens, byte cache, retries) becomes the process's way of reading remote imagery.
 */
export function openCatalog(config: Config, db: Db): { catalog: SceneCatalog; reindex: ((opts?: IndexArchiveOptions) => Promise<IndexArchiveResult>) | null } {
  const provider = openCatalogProvider(config);
  setRemoteAccess(provider.access);
  if (provider.catalog) return { catalog: provider.catalog, reindex: null };
  const local = new LocalSceneCatalog(new SqlSceneIndexStore(db), config.archiveDir);
  return {
    catalog: local,
    reindex: async (opts?: IndexArchiveOptions) => {
      fs.mkdirSync(config.archiveDir, { recursive: true });
      return local.reindex(opts);
    },
  };
}

export interface Service {
  app: FastifyInstance;
  db: Db;
  catalog: SceneCatalog;
  objects: ObjectStore;
  queue: JobQueue;
  runner: JobRunner;
  uploads: PolygonUploadService;
  tifs: TifUploadService;
  ais: AisUploadService;
  /** Monitor runs: new scenes in, runs submitted and settled (issue 21). */
  monitorRunner: MonitorRunner;
  /** The local archive's folder watch; null without one (remote catalog, api role, SARWATCH_ARCHIVE_WATCH=0). */
  archiveWatch: ArchiveWatch | null;
  /** `http://host:port` once listening; empty for the worker role, which serves no API. */
  url: string;
  /** The worker role's own /metrics listener (SARWATCH_METRICS_PORT); empty when there is none. */
  metricsUrl: string;
  close(): Promise<void>;
}

export interface StartOptions {
  registry?: AnalysisRegistry;
  logger?: boolean | object;
  /** Polling interval of the embedded queue (tests use a short one). */
  queuePollMs?: number;
  leaseSeconds?: number;
  /** Time for the API's rate limits (tests move it instead of sleeping). */
  clock?: Clock;
  /** Runs before the archive is indexed (the CLI generates the demo products here). */
  beforeIndex?: (archiveDir: string) => Promise<void>;
  /**
   * Which parts run in this process: `sarwatch serve` both (the default), `sarwatch api`
   * the HTTP API only, `sarwatch worker` the workers, the archive indexing and the
   * maintenance duties only.
   */
  roles?: { api: boolean; worker: boolean };
  /** Bring the schema up to date at start (default); the scaled-out roles leave that to `sarwatch migrate`. */
  migrate?: boolean;
  /** How long a statement waits for another process's SQLite write lock (ms; default 10 s); tests shorten it. */
  sqliteBusyTimeoutMs?: number;
}

const quietLog: Logger = { info: () => {}, error: () => {} };

/** Starts the service: API, in-process workers, maintenance — or the part `opts.roles` names. */
export async function startService(config: Config, opts: StartOptions = {}): Promise<Service> {
  const roles = opts.roles ?? { api: true, worker: true };
  const db = await openDb(config, { migrate: opts.migrate ?? true, sqliteBusyTimeoutMs: opts.sqliteBusyTimeoutMs });
  const objectSecret = loadOrCreateSecret(config.dataDir, 'object-signing.key');
  const objects = await openObjectStore(config, objectSecret);
  const { queue, reconcile } = openQueue(config, db, { pollMs: opts.queuePollMs });
  const { catalog, reindex } = openCatalog(config, db);
  // Cancels reach the workers at once: in-process embedded, over Redis pub/sub scaled out.
  const notices = config.redisUrl ? new RedisCancelNotices(config.redisUrl, `${config.queueName}:cancel`) : new MemoryCancelNotices();
  const metrics = createMetrics({ db, brokerDepth: queue instanceof BullmqQueue ? () => queue.depth() : undefined });
  const jobs = new JobService({ db, config, objects, queue, catalog, notices, onCanceled: () => metrics.countFailure('CANCELED') });
  // A worker that has not polled for a few intervals is stuck (or its loop died).
  const pollMs = opts.queuePollMs ?? 1000;
  const probes = [
    storeProbe(db),
    objectStoreProbe(objects),
    ...(queue instanceof BullmqQueue ? [brokerProbe(queue)] : []),
    ...(roles.worker ? [workerProbe(queue, Math.max(3 * pollMs, 5000))] : []),
  ];
  const shared = roles.api && config.redisUrl ? sharedRateLimits(config) : null;
  const uploads = new PolygonUploadService({ db, config, objects, log: { error: (o, m) => app.log.error(o, m) } });
  const tifs = new TifUploadService({ db, config, objects, log: { error: (o, m) => app.log.error(o, m) } });
  const ais = new AisUploadService({ db, config, objects, log: { error: (o, m) => app.log.error(o, m) } });
  const secretBox = new SecretBox(config.webhookSecretKey ? Buffer.from(config.webhookSecretKey, 'base64') : loadOrCreateSecret(config.dataDir, 'webhook-secrets.key'));
  const deliveryQueue = openDeliveryQueue(config, db);
  const webhooks = new WebhookService({ db, box: secretBox, queue: deliveryQueue, allowPrivate: config.webhookAllowPrivate });
  const monitors = new MonitorService({ db, config, catalog });
  const app = await buildApi({ db, config, jobs, uploads, tifs, ais, webhooks, monitors, objects, objectSecret, probes, logger: opts.logger, version: VERSION, clock: opts.clock, metrics, limits: shared?.limits });
  const log: Logger = opts.logger ? { info: (o, m) => app.log.info(o, m), error: (o, m) => app.log.error(o, m) } : quietLog;
  const leaseSeconds = opts.leaseSeconds ?? config.jobLeaseSeconds;
  // Scaled out, a large job's tiles run on every worker (queue/tiles.ts): this process runs
  // any job's tiles on its analysis pool, one at a time per thread.
  const tiles = roles.worker && config.redisUrl ? new BullmqTileQueue({ redisUrl: config.redisUrl, name: `${config.queueName}-tiles`, objects, ...config.tiles }) : null;
  const workerId = `worker-${randomBytes(4).toString('hex')}`;
  // Its threads stay up between fanned-out jobs: each would otherwise start and load its modules again.
  if (tiles) keepAnalysisThreadsWarm();
  tiles?.consume({
    name: workerId,
    concurrency: analysisThreads(),
    run: (call, signal) => runTileCall(call, [], signal),
    isRunning: (jobId) => jobIsProcessing(db, jobId),
  });
  const stopTileNotices = tiles ? notices.subscribe((jobId) => tiles.abortJob(jobId)) : () => {};
  const runner = new JobRunner({
    workerId,
    db,
    config,
    objects,
    catalog,
    registry: opts.registry ?? defaultRegistry(),
    log,
    leaseSeconds,
    watchIntervalMs: config.jobWatchSeconds * 1000,
    notices: roles.worker ? notices : undefined,
    onSettled: (s) => metrics.observeJob(s),
    ...(tiles ? { tiles } : {}),
  });

  const monitorRunner = new MonitorRunner({ db, config, jobs, catalog, objects, log });
  // Scenes new to the local archive run the monitors they are for.
  const runMonitorsOn = async (sceneIds: string[]) => {
    const scenes = (await Promise.all(sceneIds.map((id) => catalog.get(id)))).filter((s): s is SceneRecord => s !== null);
    const n = await monitorRunner.onNewScenes(scenes);
    if (n > 0) log.info({ scenes: sceneIds.length, runs: n }, 'monitor runs submitted for new scenes');
  };

  // The archive is indexed before workers start, so queued jobs see every scene.
  if (reindex && roles.worker) {
    if (linkSamples(config.archiveDir, config.samplesDir)) log.info({ samples: config.samplesDir }, 'linked real Sentinel-1 samples into the archive');
    await opts.beforeIndex?.(config.archiveDir);
    // One indexer at a time across processes sharing the store; the others wait, then find
    // the index up to date.
    await runWhenFree(db, 'archive-indexer', runner.workerId, 60, async () => {
      const { addedSceneIds, ...indexed } = await reindex();
      log.info({ archive: config.archiveDir, ...indexed }, 'scene archive indexed');
      if (addedSceneIds.length) void runMonitorsOn(addedSceneIds).catch((e) => log.error({ err: String(e) }, 'monitor runs for new scenes failed'));
    });
  }
  // While the service runs, products copied into the archive are indexed and run the monitors.
  const archiveWatch =
    reindex && roles.worker && config.archiveWatch
      ? watchArchive(config.archiveDir, {
          index: async (only) => {
            let result!: IndexArchiveResult;
            await runWhenFree(db, 'archive-indexer', runner.workerId, 60, async () => (result = await reindex({ only })));
            return result;
          },
          onAdded: async (ids) => {
            log.info({ scenes: ids.length }, 'new scenes indexed from the archive folder');
            await runMonitorsOn(ids);
          },
          onError: (e) => log.error({ err: e instanceof Error ? e.message : String(e) }, 'archive watch'),
        })
      : null;
  const stopMonitors = roles.worker
    ? startMonitorDuties({ db, runner: monitorRunner, owner: runner.workerId, pollSeconds: reindex ? null : config.monitorPollSeconds, log })
    : async () => {};

  // Jobs cut off by a dead process (this one's previous run, or another worker) come back
  // when their lease expires; a live worker's jobs are never taken at start-up.
  const stopMaintenance = !roles.worker ? () => {} : startMaintenance({
    db,
    objects,
    log,
    owner: runner.workerId,
    leaseSeconds,
    maxJobAttempts: config.maxJobAttempts,
    sweepIntervalSeconds: config.sweepIntervalSeconds,
    onInterrupted: (ids) => ids.forEach(() => metrics.countFailure('JOB_INTERRUPTED')),
    reconcile: reconcile && { run: reconcile, intervalSeconds: config.reconcileIntervalSeconds },
  });
  if (roles.worker) queue.consume(runner.run, config.workerConcurrency);
  // Webhook deliveries go out from worker processes, off the job path.
  const stopWebhooks = !roles.worker
    ? () => deliveryQueue.close()
    : startWebhookDispatch({
        db,
        queue: deliveryQueue,
        box: secretBox,
        owner: runner.workerId,
        allowPrivate: config.webhookAllowPrivate,
        timeoutMs: config.webhookTimeoutSeconds * 1000,
        retryBaseMs: config.webhookRetryBaseSeconds * 1000,
        concurrency: config.webhookConcurrency,
        log,
        onAttempt: (_delivery, outcome) => metrics.countWebhookAttempt(outcome.ok),
      });
  // Uploads whose validation a stopped API process left unfinished are validated again.
  if (roles.api) {
    const startedAt = isoNow();
    void uploads.resumeProcessing(startedAt).then(
      (n) => n > 0 && log.info({ uploads: n }, 'resumed the validation of polygon uploads'),
      (e) => log.error({ err: String(e) }, 'could not resume polygon upload validation'),
    );
    void tifs.resumeProcessing(startedAt).then(
      (n) => n > 0 && log.info({ uploads: n }, 'resumed the validation of image uploads'),
      (e) => log.error({ err: String(e) }, 'could not resume image upload validation'),
    );
    void ais.resumeProcessing(startedAt).then(
      (n) => n > 0 && log.info({ uploads: n }, 'resumed AIS uploads'),
      (e) => log.error({ err: String(e) }, 'could not resume AIS uploads'),
    );
  }

  const url = roles.api ? (await app.listen({ host: config.host, port: config.port })).replace('[::1]', 'localhost') : '';
  // Without the API, the runner's figures would have no way out but this listener.
  const metricsServer = !roles.api && config.metricsPort !== null ? await serveMetrics(metrics.registry, config.host, config.metricsPort) : null;
  return {
    app,
    db,
    catalog,
    objects,
    queue,
    runner,
    uploads,
    tifs,
    ais,
    monitorRunner,
    archiveWatch,
    url,
    metricsUrl: metricsServer?.url ?? '',
    // Running analyses are aborted rather than run to their end: their jobs go back to
    // pending (uncharged, the reservation held) for the next start; an analysis that has not
    // stopped after SARWATCH_SHUTDOWN_GRACE_SECONDS has its job put back regardless. Then the analysis pool
    // (one per process: a later user starts a fresh one) and, last, the store.
    async close() {
      stopMaintenance();
      const monitorsStopped = Promise.all([stopMonitors(), archiveWatch?.close()]);
      const drained = queue.close();
      // HTTP: requests in flight get the same grace as analyses; then connections still open
      // (a client holding a keep-alive socket mid-request) are cut, so shutdown is bounded.
      const cut = setTimeout(() => app.server.closeAllConnections(), config.shutdownGraceSeconds * 1000);
      cut.unref();
      await Promise.all([runner.close(config.shutdownGraceSeconds * 1000), app.close().finally(() => clearTimeout(cut)), metricsServer?.close()]);
      // The tiles this process runs for other jobs go back to the queue for the other workers.
      stopTileNotices();
      await tiles?.close();
      await Promise.all([uploads.drain(), tifs.drain(), ais.drain(), stopWebhooks(), monitorsStopped]);
      await shared?.close();
      await notices.close();
      await drained;
      await closeAnalysisPool();
      await db.destroy();
    },
  };
}
