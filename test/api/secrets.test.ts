/**
 * Issue 10, item 6: secrets stay out of logs, files are private, failed authentication is throttled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TINY_SQUARE, startTestService, waitForTerminal } from '../helpers/service.ts';
import { rawRequest } from '../helpers/rawHttp.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';

const periodBody = { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

describe('issue 10.6: secrets stay out of logs, files are private, failed authentication is throttled', () => {
  it('download signatures are redacted in the request log; API keys never appear there', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const s = await startTestService({}, { registry: createRegistry([aoiEchoTestDetector('timeseries')]), logger: { level: 'info', stream } });
    try {
      const { job_id } = await s.client.submit('analyze', 'timeseries', periodBody as never);
      expect((await waitForTerminal(s.client, job_id)).status).toBe('completed');
      const redirect = await s.http('GET', `/api/v1/jobs/${job_id}/result.geojson`);
      const location = redirect.headers.get('location')!;
      const sig = new URL(location, s.url).searchParams.get('sig')!;
      expect(sig.length).toBeGreaterThan(20);
      // Connection: close, so no kept-alive socket holds the server's close (the same-process
      // client may read the response before the server marks the socket idle).
      const download = await rawRequest(s.url, `GET ${location} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(download.status).toBe(200);
      expect(JSON.parse(download.body).type).toBe('FeatureCollection');
      const log = lines.join('\n');
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'incoming request' && l.req?.url?.startsWith('/objects/'));
      expect(logged.req.url).toMatch(/[?&]sig=\[REDACTED\]/);
      expect(logged.req.url).toMatch(/[?&]expires=\d+/);
      expect(log).not.toContain(sig);
      expect(log).not.toContain(s.apiKey);
      expect(log).not.toMatch(/authorization/i);
    } finally {
      await s.close();
    }
  });

  it('the data directory is 0700; the store (with WAL/SHM), secrets and result files are 0600', async () => {
    const s = await startTestService({}, { registry: createRegistry([aoiEchoTestDetector('timeseries')]) });
    try {
      const { job_id } = await s.client.submit('analyze', 'timeseries', periodBody as never);
      expect((await waitForTerminal(s.client, job_id)).status).toBe('completed');
      const mode = (p: string) => fs.statSync(path.join(s.dataDir, p)).mode & 0o777;
      for (const dir of ['.', 'objects', 'objects/results']) expect(mode(dir), dir).toBe(0o700);
      // The SQLite files exist only on the embedded store (SARWATCH_TEST_STORE=postgres keeps it elsewhere).
      const storeFiles = process.env.SARWATCH_TEST_STORE === 'postgres' ? [] : ['sarwatch.db', 'sarwatch.db-wal', 'sarwatch.db-shm'];
      for (const file of [...storeFiles, 'object-signing.key', `objects/results/${job_id}.1.geojson`, `objects/results/${job_id}.1.geojson.type`]) {
        expect(mode(file), file).toBe(0o600);
      }
    } finally {
      await s.close();
    }
  });

  it('more than SARWATCH_AUTH_FAILURES_PER_MINUTE failed authentications from one address → 429 RATE_LIMITED with Retry-After for its failures, until the window ends', async () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 15); // 15 s into a minute window
    const s = await startTestService({ SARWATCH_AUTH_FAILURES_PER_MINUTE: '3' }, { clock: () => now });
    try {
      const bad = `sw_aaaaaaaaaaaa_${'A'.repeat(43)}`;
      for (const key of [bad, null, 'garbage']) expect((await s.http('GET', '/api/v1/jobs', { key })).status).toBe(401);
      const limited = await s.http('GET', '/api/v1/jobs', { key: bad });
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe('RATE_LIMITED');
      expect(limited.json.error.message).toBe('more than 3 failed authentications per minute from this address; retry in 45 s');
      expect(limited.headers.get('retry-after')).toBe('45');
      // The budget limits failures only: a valid key from the same address still gets through (issue 19).
      expect((await s.http('GET', '/api/v1/jobs')).status).toBe(200);
      expect((await s.http('GET', '/api/v1/jobs', { key: null })).status).toBe(429);
      expect((await s.http('GET', '/healthz', { key: null })).status).toBe(200);
      now += 45_000; // the next window
      expect((await s.http('GET', '/api/v1/jobs', { key: bad })).status).toBe(401);
    } finally {
      await s.close();
    }
  });
});
