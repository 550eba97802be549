/**
 * Issue 13, Store: on PostgreSQL the concurrent-job limit and the credit reservation hold
 * under parallel submissions through two API processes sharing one database (the check
 * used to be count-then-insert, which let 10–11 of 12 through a limit of 2). Always runs on
 * PostgreSQL, whatever SARWATCH_TEST_STORE says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type Service } from '../../src/runtime.ts';
import { createAccount, createApiKey } from '../../src/jobs/accounts.ts';
import { TINY_SQUARE, tempDataDir } from '../helpers/service.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/services.ts';
import { northSeaFixtureScenes, writeStacArchive } from '../helpers/stacFixtures.ts';
import { hangingTestDetector } from '../helpers/testDetectors.ts';
import path from 'node:path';

const body = { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

let database: TestDatabase;
const services: Service[] = [];

async function boot(env: Record<string, string>): Promise<Service> {
  const dataDir = tempDataDir();
  writeStacArchive(path.join(dataDir, 'archive', 'fixtures'), northSeaFixtureScenes());
  const config = loadConfig({ SARWATCH_DATA_DIR: dataDir, PORT: '0', SARWATCH_SAMPLES_DIR: '', DATABASE_URL: database.url, SARWATCH_RATE_LIMIT_PER_MINUTE: '10000', ...env });
  const service = await startService(config, { queuePollMs: 50, registry: createRegistry([hangingTestDetector('timeseries')]) });
  services.push(service);
  return service;
}

async function submitInParallel(urls: string[], apiKey: string, n: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await fetch(`${urls[i % urls.length]}/api/v1/analyze/timeseries`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.close().catch(() => {})));
  await database?.drop();
});

describe('PostgreSQL store under parallel submissions', () => {
  it('12 parallel submissions against a concurrent-job limit of 2 accept exactly 2', async () => {
    const a = await boot({ SARWATCH_MAX_CONCURRENT_JOBS: '2' });
    const b = await boot({ SARWATCH_MAX_CONCURRENT_JOBS: '2' });
    const { accountId } = await createAccount(a.db, { name: 'limit', credits: 100_000 });
    const { apiKey } = await createApiKey(a.db, { accountId });
    const statuses = await submitInParallel([a.url, b.url], apiKey, 12);
    expect(statuses.filter((s) => s === 202 || s === 201 || s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const rows = await a.db.selectFrom('jobs').select('id').where('account_id', '=', accountId).execute();
    expect(rows).toHaveLength(2);
  });

  it('parallel reservations never overdraw: a balance for 3 jobs admits exactly 3, and the ledger sums to the balance', async () => {
    const [a, b] = services as [Service, Service];
    const { accountId } = await createAccount(a.db, { name: 'credits', credits: 0 });
    const { apiKey } = await createApiKey(a.db, { accountId });
    // Learn one job's reservation from a preview, then grant 3.5 of them.
    const preview = await fetch(`${a.url}/api/v1/analyze/timeseries/preview`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<{ credits: { estimated: number } }>);
    const perJob = preview.credits.estimated;
    expect(perJob).toBeGreaterThan(0);
    const { grantCredits } = await import('../../src/jobs/accounts.ts');
    await grantCredits(a.db, accountId, perJob * 3.5);
    // A limit high enough that only the balance can refuse.
    const c = await boot({ SARWATCH_MAX_CONCURRENT_JOBS: '50' });
    const d = await boot({ SARWATCH_MAX_CONCURRENT_JOBS: '50' });
    const statuses = await submitInParallel([c.url, d.url], apiKey, 12);
    expect(statuses.filter((s) => s === 402)).toHaveLength(9);
    expect(statuses.filter((s) => s < 300)).toHaveLength(3);
    const account = await b.db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow();
    expect(typeof account.balance_micros).toBe('number'); // int8 parsed, not a string
    const ledger = await b.db.selectFrom('credit_ledger').select(['kind', 'amount_micros']).where('account_id', '=', accountId).execute();
    expect(ledger.filter((r) => r.kind === 'reserve')).toHaveLength(3);
    expect(ledger.reduce((sum, r) => sum + r.amount_micros, 0)).toBe(account.balance_micros);
    expect(account.balance_micros).toBeGreaterThanOrEqual(0);
  });
});
