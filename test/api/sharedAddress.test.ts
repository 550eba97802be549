/**
 * Issue 19, item 1: one client's failed authentications do not lock out the other clients of
 * its address. The failed-auth budget limits failures only (a valid key always proceeds to its
 * per-key limit), and behind a proxy named in SARWATCH_TRUST_PROXY each client has its own
 * address; an X-Forwarded-For from anyone else is ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { loadConfig } from '../../src/config.ts';

const BAD_KEY = `sw_aaaaaaaaaaaa_${'A'.repeat(43)}`;
// Fixed time, 15 s into a minute window: no window ends during a test.
const clock = () => Date.UTC(2026, 0, 1, 12, 0, 15);
const apiOnly = { registry: createRegistry([]), roles: { api: true, worker: false }, scenes: [], clock };

/** `n` requests that do not authenticate (wrong key, no header, malformed header in turn); their statuses. */
async function failures(s: TestService, n: number, headers: (i: number) => Record<string, string> = () => ({})): Promise<number[]> {
  const keys = [BAD_KEY, null, 'garbage'];
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await s.http('GET', '/api/v1/jobs', { key: keys[i % 3], headers: headers(i) })).status);
  return statuses;
}

const twentyThen429 = (n: number) => [...Array(20).fill(401), ...Array(n - 20).fill(429)];

describe('issue 19.1: the failed-authentication budget (default 20 a minute) limits failures only', () => {
  let direct: TestService;
  let proxied: TestService;
  beforeAll(async () => {
    direct = await startTestService({}, apiOnly);
    proxied = await startTestService({ SARWATCH_TRUST_PROXY: 'loopback' }, apiOnly);
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  it('100 bad-key requests, then a valid key from the same address → 200; its failures stay 429', async () => {
    expect(await failures(direct, 100)).toEqual(twentyThen429(100));
    const ok = await direct.http('GET', '/api/v1/jobs');
    expect(ok.status).toBe(200);
    expect(ok.json.jobs).toEqual([]);
    const other = await direct.newAccount();
    expect((await direct.http('GET', '/api/v1/jobs', { key: other.apiKey })).status).toBe(200);
    const still = await direct.http('GET', '/api/v1/jobs', { key: BAD_KEY });
    expect(still.status).toBe(429);
    expect(still.json.error.message).toBe('more than 20 failed authentications per minute from this address; retry in 45 s');
  });

  it('an untrusted X-Forwarded-For is ignored: a new forwarded address per request does not buy a new budget', async () => {
    const s = await startTestService({ SARWATCH_TRUST_PROXY: '192.0.2.1' }, apiOnly); // trusts a proxy the test is not
    try {
      expect(await failures(s, 30, (i) => ({ 'X-Forwarded-For': `203.0.113.${i + 1}` }))).toEqual(twentyThen429(30));
      expect((await s.http('GET', '/api/v1/jobs', { key: BAD_KEY, headers: { 'X-Forwarded-For': '198.51.100.200' } })).status).toBe(429);
      expect((await s.http('GET', '/api/v1/jobs', { headers: { 'X-Forwarded-For': '198.51.100.200' } })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('behind a trusted proxy, two clients have a budget each: one client\'s 100 failures leave the other its 401s and both their valid keys', async () => {
    const a = { 'X-Forwarded-For': '203.0.113.7' };
    // A client may prepend anything; the trusted proxy appends the address it saw, the one counted.
    const b = (i: number) => ({ 'X-Forwarded-For': i % 2 ? '203.0.113.7, 198.51.100.9' : '198.51.100.9' });
    expect(await failures(proxied, 100, () => a)).toEqual(twentyThen429(100));
    expect((await proxied.http('GET', '/api/v1/jobs', { headers: a })).status).toBe(200);
    expect(await failures(proxied, 21, b)).toEqual(twentyThen429(21));
    expect((await proxied.http('GET', '/api/v1/jobs', { headers: b(0) })).status).toBe(200);
    // The proxy's own address (loopback, no header) is a third client with a budget of its own.
    expect((await proxied.http('GET', '/api/v1/jobs', { key: BAD_KEY })).status).toBe(401);
  });
});

describe('SARWATCH_TRUST_PROXY', () => {
  const parse = (v: string) => loadConfig({ SARWATCH_TRUST_PROXY: v }).trustProxy;
  it('off by default; a list of addresses, CIDR ranges and named ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(parse('')).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('10.0.0.0/8, 172.30.0.10,fd00::/8 ,loopback')).toEqual(['10.0.0.0/8', '172.30.0.10', 'fd00::/8', 'loopback']);
  });
  it('refuses a hop count, "true" and malformed entries with a message naming the variable', () => {
    expect(() => parse('1')).toThrow(/SARWATCH_TRUST_PROXY .*a hop count cannot tell a proxy from a client/);
    expect(() => parse('true')).toThrow(/^SARWATCH_TRUST_PROXY must be a comma-separated list/);
    expect(() => parse('10.0.0.0/33')).toThrow(/SARWATCH_TRUST_PROXY/);
    expect(() => parse('10.0.0.1/8/2')).toThrow(/SARWATCH_TRUST_PROXY/);
    expect(() => parse('proxy.internal')).toThrow(/SARWATCH_TRUST_PROXY/);
  });
});
