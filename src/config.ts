/**
 * Configuration from environment variables, with the embedded defaults so that
 * `sarwatch serve` needs none. Every variable is listed in README's configuration table.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUBMITTABLE_ENDPOINTS, type SubmittableEndpoint } from './contract/enums.ts';

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
  maxRequestBytes: number;
  /** Polygon area limits in km² (spec: timeseries 50, building change 30,000; ship/oilslick ours). */
  areaLimitsSqkm: Record<SubmittableEndpoint, number>;
  timeseriesMaxYears: number;
  /** Credits per km² analysed, per endpoint. */
  pricesPerSqkm: Record<SubmittableEndpoint, number>;
  /** What a scene_id job reserves, in km², since its footprint is unknown until it runs. */
  sceneReserveSqkm: number;
  workerConcurrency: number;
  /** How often the retention sweeper runs. */
  sweepIntervalSeconds: number;
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
  s3Endpoint: string;
  s3ForcePathStyle: boolean;
  /** On-disk cache of fetched imagery bytes ('' = memory only) and its bound. */
  byteCacheDir: string;
  byteCacheMaxBytes: number;
  /** Attempts per remote request (search, token, range read) and per-request timeout. */
  remoteAttempts: number;
  remoteTimeoutMs: number;
}

export const CATALOG_PROVIDERS = ['local', 'stac', 'planetary-computer', 'cdse'] as const;
export type CatalogProviderName = (typeof CATALOG_PROVIDERS)[number];

function catalogProvider(env: NodeJS.ProcessEnv): CatalogProviderName {
  const raw = (env.CATALOG_PROVIDER ?? '').trim().toLowerCase();
  // Before CATALOG_PROVIDER existed, CATALOG_URL alone meant a STAC API.
  if (raw === '') return env.CATALOG_URL ? 'stac' : 'local';
  if (!(CATALOG_PROVIDERS as readonly string[]).includes(raw)) throw new Error(`CATALOG_PROVIDER must be one of ${CATALOG_PROVIDERS.join(', ')}, got "${env.CATALOG_PROVIDER}"`);
  return raw as CatalogProviderName;
}

/** The real samples beside the repository (`../shared/data/s1`), when present. */
const DEFAULT_SAMPLES_DIR = fileURLToPath(new URL('../../shared/data/s1', import.meta.url));

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, opts: { integer?: boolean; min?: number } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || (opts.integer && !Number.isInteger(value)) || (opts.min !== undefined && value < opts.min)) {
    throw new Error(`${name} must be ${opts.integer ? 'an integer' : 'a number'}${opts.min !== undefined ? ` >= ${opts.min}` : ''}, got "${raw}"`);
  }
  return value;
}

function perEndpoint(env: NodeJS.ProcessEnv, prefix: string, defaults: Record<SubmittableEndpoint, number>) {
  const out = { ...defaults };
  for (const e of SUBMITTABLE_ENDPOINTS) out[e] = num(env, `${prefix}_${e.toUpperCase()}`, defaults[e], { min: 0 });
  return out;
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
    maxRequestBytes: num(env, 'SARWATCH_MAX_REQUEST_BYTES', 1_048_576, { integer: true, min: 1024 }),
    areaLimitsSqkm: perEndpoint(env, 'SARWATCH_AREA_LIMIT_SQKM', {
      ship: 100_000,
      oilslick: 100_000,
      newbuilding: 30_000,
      disappearbuilding: 30_000,
      timeseries: 50,
    }),
    timeseriesMaxYears: 3,
    pricesPerSqkm: perEndpoint(env, 'SARWATCH_PRICE_PER_SQKM', {
      ship: 0.01,
      oilslick: 0.01,
      newbuilding: 0.1,
      disappearbuilding: 0.1,
      timeseries: 1,
    }),
    sceneReserveSqkm: num(env, 'SARWATCH_SCENE_RESERVE_SQKM', 45_000, { min: 0 }),
    workerConcurrency: num(env, 'SARWATCH_WORKER_CONCURRENCY', 1, { integer: true, min: 1 }),
    sweepIntervalSeconds: num(env, 'SARWATCH_SWEEP_INTERVAL_SECONDS', 60, { min: 0.05 }),
    maxJobAttempts: num(env, 'SARWATCH_MAX_JOB_ATTEMPTS', 3, { integer: true, min: 1 }),
    demoCredits: num(env, 'SARWATCH_DEMO_CREDITS', 10_000, { min: 0 }),
    archiveDir: path.resolve(env.SARWATCH_ARCHIVE_DIR || path.join(env.SARWATCH_DATA_DIR || './data', 'archive')),
    samplesDir: env.SARWATCH_SAMPLES_DIR !== undefined ? env.SARWATCH_SAMPLES_DIR && path.resolve(env.SARWATCH_SAMPLES_DIR) : DEFAULT_SAMPLES_DIR,
    demoArchive: (env.SARWATCH_DEMO_ARCHIVE ?? '1') !== '0',
    catalogUrl: env.CATALOG_URL || '',
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
    s3Endpoint: env.CATALOG_S3_ENDPOINT || '',
    s3ForcePathStyle: (env.CATALOG_S3_FORCE_PATH_STYLE ?? '0') === '1',
    byteCacheDir:
      env.SARWATCH_BYTE_CACHE_DIR !== undefined
        ? env.SARWATCH_BYTE_CACHE_DIR && path.resolve(env.SARWATCH_BYTE_CACHE_DIR)
        : path.resolve(env.SARWATCH_DATA_DIR || './data', 'byte-cache'),
    byteCacheMaxBytes: Math.round(num(env, 'SARWATCH_BYTE_CACHE_MAX_MB', 10_240, { min: 0 }) * 1024 * 1024),
    remoteAttempts: num(env, 'SARWATCH_REMOTE_ATTEMPTS', 5, { integer: true, min: 1 }),
    remoteTimeoutMs: Math.round(num(env, 'SARWATCH_REMOTE_TIMEOUT_SECONDS', 60, { min: 0.1 }) * 1000),
  };
}
