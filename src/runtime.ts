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
import { FileObjectStore } from './objects/file.ts';
import type { ObjectStore } from './objects/port.ts';
import { StoreBackedQueue } from './queue/storeBacked.ts';
import type { JobQueue } from './queue/port.ts';
import { JobService } from './jobs/service.ts';
import { recoverInterruptedJobs } from './jobs/transitions.ts';
import { buildApi } from './api/app.ts';
import { JobRunner, type Logger } from './worker/runner.ts';
import { sweepExpiredResults } from './worker/retention.ts';
import { defaultRegistry, type AnalysisRegistry } from './analysis/registry.ts';
import { LocalSceneCatalog, type SceneCatalog } from './catalog/index.ts';
import { linkSamples } from './catalog/archive.ts';
import { openCatalogProvider } from './catalog/providers/index.ts';
import { setRemoteAccess } from './imagery/remote/access.ts';
import { SqlSceneIndexStore } from './store/sceneIndexStore.ts';
import { VERSION } from './version.ts';

export function storeUrl(config: Config): string {
  return process.env.DATABASE_URL || `sqlite:${path.join(config.dataDir, 'sarwatch.db')}`;
}

/** A random secret kept in the data directory, so signed URLs survive restarts and the CLI can share it. */
export function loadOrCreateSecret(dataDir: string, name: string): Buffer {
  const file = path.join(dataDir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const secret = randomBytes(32);
    fs.writeFileSync(file, secret.toString('base64'), { mode: 0o600, flag: 'wx' });
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  }
}

export async function openDb(config: Config): Promise<Db> {
  return openStore(storeUrl(config));
}

/**
 * The scene catalog of CATALOG_PROVIDER (docs/catalogs.md): a STAC API (any, Planetary
 * Computer, Copernicus Data Space), or the local archive folder (indexed into the store;
 * `reindex` brings it up to date incrementally). The provider's remote access (signing,
 * tokens, byte cache, retries) becomes the process's way of reading remote imagery.
 */
export function openCatalog(config: Config, db: Db): { catalog: SceneCatalog; reindex: (() => Promise<unknown>) | null } {
  const provider = openCatalogProvider(config);
  setRemoteAccess(provider.access);
  if (provider.catalog) return { catalog: provider.catalog, reindex: null };
  const local = new LocalSceneCatalog(new SqlSceneIndexStore(db), config.archiveDir);
  return {
    catalog: local,
    reindex: async () => {
      fs.mkdirSync(config.archiveDir, { recursive: true });
      return local.reindex();
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
  /** `http://host:port` once listening. */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  registry?: AnalysisRegistry;
  logger?: boolean | object;
  /** Polling interval of the embedded queue (tests use a short one). */
  queuePollMs?: number;
  leaseSeconds?: number;
  /** Runs before the archive is indexed (the CLI generates the demo products here). */
  beforeIndex?: (archiveDir: string) => Promise<void>;
}

const quietLog: Logger = { info: () => {}, error: () => {} };

/** Starts the embedded service: API, in-process workers, retention sweeper. */
export async function startService(config: Config, opts: StartOptions = {}): Promise<Service> {
  const db = await openDb(config);
  const objectSecret = loadOrCreateSecret(config.dataDir, 'object-signing.key');
  const objects = new FileObjectStore(path.join(config.dataDir, 'objects'), objectSecret, `${config.publicUrl}/objects`);
  const queue = new StoreBackedQueue(db, opts.queuePollMs ?? 1000);
  const { catalog, reindex } = openCatalog(config, db);
  const jobs = new JobService({ db, config, objects, queue, catalog });
  const app = await buildApi({ db, config, jobs, objects, objectSecret, logger: opts.logger, version: VERSION });
  const log: Logger = opts.logger ? { info: (o, m) => app.log.info(o, m), error: (o, m) => app.log.error(o, m) } : quietLog;
  const runner = new JobRunner({ db, config, objects, catalog, registry: opts.registry ?? defaultRegistry(), log, leaseSeconds: opts.leaseSeconds });

  // The archive is indexed before workers start, so queued jobs see every scene.
  if (reindex) {
    if (linkSamples(config.archiveDir, config.samplesDir)) log.info({ samples: config.samplesDir }, 'linked real Sentinel-1 samples into the archive');
    await opts.beforeIndex?.(config.archiveDir);
    const indexed = await reindex();
    log.info({ archive: config.archiveDir, ...(indexed as object) }, 'scene archive indexed');
  }

  // Embedded mode has exactly one worker process: anything still `processing` was cut off
  // by a crash or kill of the previous run.
  const recovered = await recoverInterruptedJobs(db, { all: true, maxAttempts: config.maxJobAttempts });
  if (recovered.requeued.length || recovered.failed.length) log.info(recovered, 'recovered interrupted jobs');

  queue.consume(runner.run, config.workerConcurrency);
  const sweeper = setInterval(() => {
    void sweepExpiredResults(db, objects).catch((e) => log.error({ err: String(e) }, 'retention sweep failed'));
  }, config.sweepIntervalSeconds * 1000);
  sweeper.unref();

  const address = await app.listen({ host: config.host, port: config.port });
  const url = address.replace('[::1]', 'localhost');
  return {
    app,
    db,
    catalog,
    objects,
    queue,
    runner,
    url,
    async close() {
      clearInterval(sweeper);
      await app.close();
      await Promise.race([queue.close(), new Promise((r) => setTimeout(r, 10_000))]);
      await db.destroy();
    },
  };
}
