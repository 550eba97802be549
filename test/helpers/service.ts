/**
 * Starts the real embedded service (SQLite, local objects, in-process worker) on a free
 * port with a fresh data directory; tests talk to it over HTTP, through the SDK or fetch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { startService, type Service, type StartOptions } from '../../src/runtime.ts';
import { createAccount, createApiKey } from '../../src/jobs/accounts.ts';
import { SarwatchClient } from '../../src/client/index.ts';
import { northSeaFixtureScenes, writeStacArchive, type FixtureScene } from './stacFixtures.ts';
import { dropTestStore, testStoreEnv } from './services.ts';

/** Raw HTTP against a service: the key as Bearer unless `key` is given (null: no Authorization header). */
export type HttpCall = (
  method: string,
  urlPath: string,
  opts?: { body?: unknown; rawBody?: string; key?: string | null; headers?: Record<string, string> },
) => Promise<{ status: number; headers: Headers; json: any; text: string }>;

/** An HttpCall on `url` with `defaultKey`: redirects not followed, the body read as text and as JSON when it parses. */
export function httpCaller(url: string, defaultKey: string): HttpCall {
  return async (method, urlPath, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const key = o.key === undefined ? defaultKey : o.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${url}${urlPath}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}

export interface TestService {
  service: Service;
  config: Config;
  dataDir: string;
  url: string;
  apiKey: string;
  accountId: string;
  client: SarwatchClient;
  /** A second, separate account with its own key. */
  newAccount(opts?: { credits?: number; scopes?: string[]; endpoints?: string[] }): Promise<{ accountId: string; apiKey: string; client: SarwatchClient }>;
  /** Raw HTTP with the default key unless `key` is given (null: no Authorization header). */
  http: HttpCall;
  close(): Promise<void>;
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-test-'));
}

export async function startTestService(
  env: Record<string, string> = {},
  opts: StartOptions & { credits?: number; scenes?: FixtureScene[] } = {},
): Promise<TestService> {
  const dataDir = tempDataDir();
  // By default the archive holds the STAC fixture scenes only (fast to index); tests of the
  // real samples pass SARWATCH_SAMPLES_DIR.
  const fixtures = opts.scenes ?? northSeaFixtureScenes();
  if (fixtures.length) writeStacArchive(path.join(dataDir, 'archive', 'fixtures'), fixtures);
  // SARWATCH_TEST_STORE=postgres runs the same tests on a fresh PostgreSQL database.
  const storeEnv = await testStoreEnv(dataDir);
  const config = loadConfig({ SARWATCH_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SARWATCH_SAMPLES_DIR: '', ...storeEnv, ...env });
  let service: Service;
  try {
    service = await startService(config, { queuePollMs: 50, ...opts });
  } catch (e) {
    await dropTestStore(dataDir);
    throw e;
  }
  const url = service.url;

  const newAccount: TestService['newAccount'] = async (o = {}) => {
    const { accountId } = await createAccount(service.db, { name: 'test', credits: o.credits ?? 1000 });
    const { apiKey } = await createApiKey(service.db, { accountId, scopes: o.scopes, endpoints: o.endpoints });
    return { accountId, apiKey, client: new SarwatchClient({ baseUrl: url, apiKey }) };
  };
  const main = await newAccount({ credits: opts.credits ?? 1000 });

  const http = httpCaller(url, main.apiKey);

  return {
    service,
    config,
    dataDir,
    url,
    apiKey: main.apiKey,
    accountId: main.accountId,
    client: main.client,
    newAccount,
    http,
    async close() {
      await service.close();
      await dropTestStore(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls the job until it leaves pending/processing (tests only; short intervals). */
export async function waitForTerminal(client: SarwatchClient, jobId: string, timeoutMs = 20_000) {
  return client.wait(jobId, { initialDelayMs: 25, maxDelayMs: 200, timeoutMs, throwOnFailure: false });
}

/** A 0.1° × 0.1° square near the North Sea crop (≈ 77 km²). */
export const SMALL_SQUARE = 'POLYGON ((2.5 51.3, 2.6 51.3, 2.6 51.4, 2.5 51.4, 2.5 51.3))';
/** ≈ 0.05° × 0.05° (≈ 19 km²), under the 50 km² time-series limit. */
export const TINY_SQUARE = 'POLYGON ((2.5 51.3, 2.55 51.3, 2.55 51.35, 2.5 51.35, 2.5 51.3))';
export const GRD_SCENE = 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25';
export const SLC_SCENE = 'S1A_IW_SLC__1SDV_20220918T074921_20220918T074946_045056_056232_6F5A';

/** Waits until none of the account's jobs is pending or processing (so balances are stable). */
export async function settleAll(client: SarwatchClient, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const active = await client.listJobs({ status: ['pending', 'processing'] });
    if (active.jobs.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${active.jobs.length} jobs still active`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
