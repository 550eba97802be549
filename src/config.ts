/**
 * Configuration from environment variables, with the embedded defaults so that
 * `sarwatch serve` needs none. Every variable is listed in README's configuration table.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENDPOINTS, type EndpointDescriptor, type EndpointName as SubmittableEndpoint } from './endpoints/index.ts';
import type { PolygonLimits } from './geo/index.ts';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Absolute base URL used in redirects; empty → relative Location headers. */
  publicUrl: string;
  resultRetentionDays: number;
  signedUrlTtlSeconds: number;
  maxConcurrentJobs: number;
  rateLimitPerMinute: number;
  /** Failed authentications (401) per client address per minute; past it a request that does not authenticate gets 429. */
  authFailuresPerMinute: number;
  /**
   * Which proxies' `X-Forwarded-For` decides the client address (Fastify's `trustProxy`):
   * false (the socket address, the default) or the proxies' addresses and CIDR ranges.
   */
  trustProxy: TrustProxy;
  maxRequestBytes: number;
  /** A polygon upload's body, bytes (read as a stream; 413 past it). */
  maxUploadBytes: number;
  /** An image upload's body (σ0 GeoTIFF or SAFE zip), bytes: streamed to a file, 413 past it. */
  maxTifUploadBytes: number;
  /** Features of one polygon upload (400 past it). */
  maxUploadFeatures: number;
  /** Size limits of a request polygon (parts, rings per polygon, vertices in all); each uploaded feature and their union too. */
  polygonLimits: PolygonLimits;
  /** Polygon area limits in km², per endpoint (defaults: the endpoint descriptors, src/endpoints). */
  areaLimitsSqkm: Record<SubmittableEndpoint, number>;
  /** Credits per km² analysed, per endpoint (defaults: the endpoint descriptors). */
  pricesPerSqkm: Record<SubmittableEndpoint, number>;
  /** What a scene_id job reserves, in km², since its footprint is unknown until it runs. */
  sceneReserveSqkm: number;
  workerConcurrency: number;
  /**
   * Scaled out: a job's tile plan of at least `minTiles` tiles spreads over every worker (at most
   * `fanout` tiles out at once); `lockSeconds`: how soon a tile of a dead worker goes to another.
   */
  tiles: { fanout: number; minTiles: number; lockSeconds: number };
  /** How often the retention sweeper runs. */
  sweepIntervalSeconds: number;
  /** SIGTERM: how long running analyses get to stop before their jobs are put back regardless. */
  shutdownGraceSeconds: number;
  /** A job interrupted this many times (process died while it ran) is failed, not retried. */
  maxJobAttempts: number;
  demoCredits: number;
  /** Folder the local scene catalog indexes (SAFE folders/zips, RTC GeoTIFFs, STAC items). */
  archiveDir: string;
  /** Real Sentinel-1 samples linked into the archive at start ('' to skip). */
  samplesDir: string;
  /** Whether `serve` generates the synthetic demo products into the archive on first start. */
  demoArchive: boolean;
  /** Empty: the local archive catalog; otherwise the URL of a STAC API. */
  catalogUrl: string;
  /** Empty: SQLite in the data directory; otherwise `sqlite:PATH` or `postgres://…`. */
  databaseUrl: string;
  /** PostgreSQL connections per process. */
  databasePoolSize: number;
  /** A running job's lease: a worker that misses heartbeats this long loses the job to recovery. */
  jobLeaseSeconds: number;
  /** How often a worker asks the store whether a job it runs was canceled (the 2 s stop bound of a cancel). */
  jobWatchSeconds: number;
  /** Job event streams (GET /jobs/{id}/events): open streams per API key and API process (429 past it). */
  maxEventStreamsPerKey: number;
  /** How often an API process reads new job events for all its open streams (one query per interval). */
  eventsPollSeconds: number;
  /** A comment line on every open event stream this often, so proxies keep it open. */
  eventsHeartbeatSeconds: number;
  /** Empty: result objects in the data directory; otherwise `s3://bucket/prefix`. */
  storageUrl: string;
  /** S3-compatible endpoint (MinIO, s3rver, …); empty for AWS. */
  s3Endpoint: string;
  /** Path-style bucket addressing (`endpoint/bucket/key`), which most S3-compatible servers need. */
  s3ForcePathStyle: boolean;
  /** Raster tile URL template ({z}/{x}/{y}) of the dashboard's online basemap; '' for the offline one only. */
  basemapUrl: string;
  /** The built dashboard (`npm run build:web`), served at `/`. */
  webDir: string;
  /** Empty: the embedded queue (the store is the queue); otherwise BullMQ on this Redis. */
  redisUrl: string;
  /** BullMQ queue name: deployments (or test runs) sharing one Redis use different names. */
  queueName: string;
  /** How often pending jobs missing from the queue are enqueued again (BullMQ only). */
  reconcileIntervalSeconds: number;
  /** `sarwatch worker` only: port of its /metrics listener (null: none; 0: any free port). */
  metricsPort: number | null;
  /** Where scenes come from (docs/catalogs.md): local archive, any STAC API, Planetary Computer, Copernicus Data Space. */
  catalogProvider: CatalogProviderName;
  /** Planetary Computer's SAS token endpoint (the collection id is appended). */
  pcSasTokenUrl: string;
  /** Optional Planetary Computer subscription key (higher rate limits). */
  pcSubscriptionKey: string;
  /** Copernicus Data Space: OIDC token endpoint, client, secret or refresh token. */
  cdse: {
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    refreshToken: string;
    username: string;
    password: string;
    /** S3 endpoint of the `eodata` bucket and the user's S3 keys (empty: https assets with the OIDC token). */
    s3Endpoint: string;
    s3AccessKey: string;
    s3SecretKey: string;
    /** CDSE allows 4 concurrent S3 connections per user. */
    s3MaxConnections: number;
  };
  /** S3 endpoint for `s3://` assets of other providers ('' = AWS, from the usual AWS_* variables). */
  catalogS3Endpoint: string;
  catalogS3ForcePathStyle: boolean;
  /** On-disk cache of fetched imagery bytes ('' = memory only) and its bound. */
  byteCacheDir: string;
  byteCacheMaxBytes: number;
  /** Attempts per remote request (search, token, range read) and per-request timeout. */
  remoteAttempts: number;
  remoteTimeoutMs: number;
  /** Webhooks may target http and private/loopback addresses (tests, on-premises receivers). */
  webhookAllowPrivate: boolean;
  /** Base64 of the 32-byte key sealing webhook secrets at rest; empty: a key file in the data directory. */
  webhookSecretKey: string;
  /** First retry delay of a failed delivery; each later one doubles (with jitter), up to an hour. */
  webhookRetryBaseSeconds: number;
  /** Time limit of one delivery attempt. */
  webhookTimeoutSeconds: number;
  /** Deliveries in flight per process. */
  webhookConcurrency: number;
  /** How often monitors search a remote catalog (STAC, Planetary Computer, CDSE) for new scenes. */
  monitorPollSeconds: number;
  /** Failed runs in a row that suspend a monitor. */
  monitorMaxFailures: number;
  /** Watch the local archive folder for new products (monitors); off: only the start-up index. */
  archiveWatch: boolean;
}

export type TrustProxy = false | string[];

export const CATALOG_PROVIDERS = ['local', 'stac', 'planetary-computer', 'cdse'] as const;
export type CatalogProviderName = (typeof CATALOG_PROVIDERS)[number];

function catalogProvider(env: NodeJS.ProcessEnv): CatalogProviderName {
  const raw = (env.CATALOG_PROVIDER ?? '').trim().toLowerCase();
  // Before CATALOG_PROVIDER existed, CATALOG_URL alone meant a STAC API.
  if (raw === '') return env.CATALOG_URL ? 'stac' : 'local';
  if (!(CATALOG_PROVIDERS as readonly string[]).includes(raw)) throw new Error(`CATALOG_PROVIDER must be one of ${CATALOG_PROVIDERS.join(', ')}, got "${env.CATALOG_PROVIDER}"`);
  return raw as CatalogProviderName;
}

/** The real Sentinel-1 samples committed in the repository (`samples/s1`, see its SOURCES.md). */
export const DEFAULT_SAMPLES_DIR = fileURLToPath(new URL('../samples/s1', import.meta.url));

/** Where `npm run build:web` (run by `npm install`) writes the dashboard. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../dist/web', import.meta.url));

/** SARWATCH_BASEMAP_URL: an http(s) tile template, checked at start rather than in the browser. */
function basemapUrl(env: NodeJS.ProcessEnv): string {
  const raw = (env.SARWATCH_BASEMAP_URL ?? '').trim();
  if (!raw) return '';
  if (!/^https?:\/\/[^\s"'<>]+$/i.test(raw) || !/\{z\}/.test(raw) || !/\{x\}/.test(raw) || !/\{y\}/.test(raw)) {
    throw new Error(`SARWATCH_BASEMAP_URL must be an http(s) tile URL template with {z}, {x} and {y}, got "${raw}"`);
  }
  return raw;
}

/** proxy-addr's named ranges, accepted in SARWATCH_TRUST_PROXY's list. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * SARWATCH_TRUST_PROXY: empty, 0 or false → off; otherwise a comma-separated list of proxy
 * addresses, CIDR ranges (`10.0.0.0/8`) and the names loopback, linklocal, uniquelocal.
 * Refused: "true" (any client could name its own address) and a hop count, which Fastify
 * ignores since 5.12 for the same reason (it cannot tell a proxy from a client that reaches
 * the API directly and sends the header itself) — accepting it would silently change nothing.
 */
export function trustProxy(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = (env.SARWATCH_TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.find((e) => !trustedEntry(e));
  if (bad !== undefined || entries.length === 0) {
    const why = /^\d+$/.test(raw) ? ' (a hop count cannot tell a proxy from a client that reaches the API directly: name the proxies)' : '';
    throw new Error(
      `SARWATCH_TRUST_PROXY must be a comma-separated list of proxy addresses and CIDR ranges (or loopback, linklocal, uniquelocal)${why}, got "${raw}"`,
    );
  }
  return entries;
}

function trustedEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, opts: { integer?: boolean; min?: number } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || (opts.integer && !Number.isInteger(value)) || (opts.min !== undefined && value < opts.min)) {
    throw new Error(`${name} must be ${opts.integer ? 'an integer' : 'a number'}${opts.min !== undefined ? ` >= ${opts.min}` : ''}, got "${raw}"`);
  }
  return value;
}

/** `${prefix}_${ID}` for every endpoint, its descriptor's value by default. */
function perEndpoint(env: NodeJS.ProcessEnv, prefix: string, fallback: (e: EndpointDescriptor) => number): Record<SubmittableEndpoint, number> {
  return Object.fromEntries(ENDPOINTS.map((e) => [e.id, num(env, `${prefix}_${e.id.toUpperCase()}`, fallback(e), { min: 0 })])) as Record<SubmittableEndpoint, number>;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    host: env.HOST || '127.0.0.1',
    port: num(env, 'PORT', 8080, { integer: true, min: 0 }),
    dataDir: path.resolve(env.SARWATCH_DATA_DIR || './data'),
    publicUrl: (env.SARWATCH_PUBLIC_URL || '').replace(/\/+$/, ''),
    resultRetentionDays: num(env, 'SARWATCH_RESULT_RETENTION_DAYS', 30, { min: 0 }),
    signedUrlTtlSeconds: num(env, 'SARWATCH_SIGNED_URL_TTL_SECONDS', 900, { integer: true, min: 1 }),
    maxConcurrentJobs: num(env, 'SARWATCH_MAX_CONCURRENT_JOBS', 10, { integer: true, min: 1 }),
    rateLimitPerMinute: num(env, 'SARWATCH_RATE_LIMIT_PER_MINUTE', 300, { integer: true, min: 1 }),
    authFailuresPerMinute: num(env, 'SARWATCH_AUTH_FAILURES_PER_MINUTE', 20, { integer: true, min: 1 }),
    trustProxy: trustProxy(env),
    maxRequestBytes: num(env, 'SARWATCH_MAX_REQUEST_BYTES', 1_048_576, { integer: true, min: 1024 }),
    maxUploadBytes: num(env, 'SARWATCH_MAX_UPLOAD_BYTES', 10_485_760, { integer: true, min: 1024 }),
    // A dual-polarisation IW GRDH SAFE zip is about 1.7 GB; a float32 σ0 GeoTIFF of one, ~3.4 GB.
    maxTifUploadBytes: num(env, 'SARWATCH_MAX_TIF_UPLOAD_BYTES', 4_294_967_296, { integer: true, min: 1024 }),
    maxUploadFeatures: num(env, 'SARWATCH_MAX_UPLOAD_FEATURES', 10_000, { integer: true, min: 1 }),
    polygonLimits: {
      maxParts: num(env, 'SARWATCH_MAX_POLYGON_PARTS', 10_000, { integer: true, min: 1 }),
      maxRingsPerPolygon: num(env, 'SARWATCH_MAX_POLYGON_RINGS', 10_000, { integer: true, min: 1 }),
      maxVertices: num(env, 'SARWATCH_MAX_POLYGON_VERTICES', 250_000, { integer: true, min: 4 }),
    },
    areaLimitsSqkm: perEndpoint(env, 'SARWATCH_AREA_LIMIT_SQKM', (e) => e.limits.areaSqkm),
    pricesPerSqkm: perEndpoint(env, 'SARWATCH_PRICE_PER_SQKM', (e) => e.pricePerSqkm),
    sceneReserveSqkm: num(env, 'SARWATCH_SCENE_RESERVE_SQKM', 45_000, { min: 0 }),
    workerConcurrency: num(env, 'SARWATCH_WORKER_CONCURRENCY', 1, { integer: true, min: 1 }),
    tiles: {
      fanout: num(env, 'SARWATCH_TILE_FANOUT', 12, { integer: true, min: 1 }),
      minTiles: num(env, 'SARWATCH_TILE_FANOUT_MIN_TILES', 32, { integer: true, min: 2 }),
      lockSeconds: num(env, 'SARWATCH_TILE_LOCK_SECONDS', 30, { min: 1 }),
    },
    sweepIntervalSeconds: num(env, 'SARWATCH_SWEEP_INTERVAL_SECONDS', 60, { min: 0.05 }),
    maxJobAttempts: num(env, 'SARWATCH_MAX_JOB_ATTEMPTS', 3, { integer: true, min: 1 }),
    shutdownGraceSeconds: num(env, 'SARWATCH_SHUTDOWN_GRACE_SECONDS', 30, { min: 0 }),
    demoCredits: num(env, 'SARWATCH_DEMO_CREDITS', 10_000, { min: 0 }),
    archiveDir: path.resolve(env.SARWATCH_ARCHIVE_DIR || path.join(env.SARWATCH_DATA_DIR || './data', 'archive')),
    samplesDir: env.SARWATCH_SAMPLES_DIR !== undefined ? env.SARWATCH_SAMPLES_DIR && path.resolve(env.SARWATCH_SAMPLES_DIR) : DEFAULT_SAMPLES_DIR,
    demoArchive: (env.SARWATCH_DEMO_ARCHIVE ?? '1') !== '0',
    catalogUrl: env.CATALOG_URL || '',
    databaseUrl: env.DATABASE_URL || '',
    databasePoolSize: num(env, 'SARWATCH_DATABASE_POOL_SIZE', 10, { integer: true, min: 1 }),
    jobLeaseSeconds: num(env, 'SARWATCH_JOB_LEASE_SECONDS', 60, { min: 1 }),
    jobWatchSeconds: num(env, 'SARWATCH_JOB_WATCH_SECONDS', 0.5, { min: 0.01 }),
    maxEventStreamsPerKey: num(env, 'SARWATCH_MAX_EVENT_STREAMS_PER_KEY', 5, { integer: true, min: 1 }),
    eventsPollSeconds: num(env, 'SARWATCH_EVENTS_POLL_SECONDS', 1, { min: 0.01 }),
    eventsHeartbeatSeconds: num(env, 'SARWATCH_EVENTS_HEARTBEAT_SECONDS', 15, { min: 0.01 }),
    storageUrl: env.STORAGE_URL || '',
    s3Endpoint: env.S3_ENDPOINT || '',
    s3ForcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE', false),
    basemapUrl: basemapUrl(env),
    webDir: path.resolve(env.SARWATCH_WEB_DIR || DEFAULT_WEB_DIR),
    redisUrl: env.REDIS_URL || '',
    queueName: env.SARWATCH_QUEUE_NAME || 'sarwatch-jobs',
    reconcileIntervalSeconds: num(env, 'SARWATCH_RECONCILE_INTERVAL_SECONDS', 10, { min: 0.05 }),
    metricsPort: env.SARWATCH_METRICS_PORT ? num(env, 'SARWATCH_METRICS_PORT', 0, { integer: true, min: 0 }) : null,
    catalogProvider: catalogProvider(env),
    pcSasTokenUrl: (env.PC_SAS_TOKEN_URL || 'https://planetarycomputer.microsoft.com/api/sas/v1/token').replace(/\/+$/, ''),
    pcSubscriptionKey: env.PC_SUBSCRIPTION_KEY || '',
    cdse: {
      tokenUrl: env.CDSE_TOKEN_URL || 'https://identity.dataspace.copernicus.eu/auth/realms/CDSE/protocol/openid-connect/token',
      clientId: env.CDSE_CLIENT_ID || 'cdse-public',
      clientSecret: env.CDSE_CLIENT_SECRET || '',
      refreshToken: env.CDSE_REFRESH_TOKEN || '',
      username: env.CDSE_USERNAME || '',
      password: env.CDSE_PASSWORD || '',
      s3Endpoint: env.CDSE_S3_ENDPOINT ?? 'https://eodata.dataspace.copernicus.eu',
      s3AccessKey: env.CDSE_S3_ACCESS_KEY || '',
      s3SecretKey: env.CDSE_S3_SECRET_KEY || '',
      s3MaxConnections: num(env, 'CDSE_S3_MAX_CONNECTIONS', 4, { integer: true, min: 1 }),
    },
    catalogS3Endpoint: env.CATALOG_S3_ENDPOINT || '',
    catalogS3ForcePathStyle: flag(env, 'CATALOG_S3_FORCE_PATH_STYLE', false),
    byteCacheDir:
      env.SARWATCH_BYTE_CACHE_DIR !== undefined
        ? env.SARWATCH_BYTE_CACHE_DIR && path.resolve(env.SARWATCH_BYTE_CACHE_DIR)
        : path.resolve(env.SARWATCH_DATA_DIR || './data', 'byte-cache'),
    byteCacheMaxBytes: Math.round(num(env, 'SARWATCH_BYTE_CACHE_MAX_MB', 10_240, { min: 0 }) * 1024 * 1024),
    remoteAttempts: num(env, 'SARWATCH_REMOTE_ATTEMPTS', 5, { integer: true, min: 1 }),
    remoteTimeoutMs: Math.round(num(env, 'SARWATCH_REMOTE_TIMEOUT_SECONDS', 60, { min: 0.1 }) * 1000),
    webhookAllowPrivate: flag(env, 'SARWATCH_WEBHOOK_ALLOW_PRIVATE', false),
    webhookSecretKey: env.SARWATCH_WEBHOOK_SECRET_KEY || '',
    webhookRetryBaseSeconds: num(env, 'SARWATCH_WEBHOOK_RETRY_BASE_SECONDS', 5, { min: 0.01 }),
    webhookTimeoutSeconds: num(env, 'SARWATCH_WEBHOOK_TIMEOUT_SECONDS', 10, { min: 0.1 }),
    webhookConcurrency: num(env, 'SARWATCH_WEBHOOK_CONCURRENCY', 32, { integer: true, min: 1 }),
    monitorPollSeconds: num(env, 'SARWATCH_MONITOR_POLL_SECONDS', 600, { min: 0.05 }),
    monitorMaxFailures: num(env, 'SARWATCH_MONITOR_MAX_FAILURES', 3, { integer: true, min: 1 }),
    archiveWatch: flag(env, 'SARWATCH_ARCHIVE_WATCH', true),
  };
}
