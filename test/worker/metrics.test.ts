/**
 * Issue 13, Operations: a worker-only process has no API, yet job durations and failures
 * by code are observed where jobs run. With SARWATCH_METRICS_PORT the worker role answers
 * GET /metrics on a listener of its own; an API-only process sharing the store shows none
 * of those figures (it ran nothing), the worker shows them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startService, type Service } from '../../src/runtime.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector, crashingTestDetector } from '../helpers/testDetectors.ts';
import { sample, scrapeUntil } from '../helpers/metrics.ts';

let api: TestService;
let worker: Service;
beforeAll(async () => {
  api = await startTestService({}, { registry: createRegistry([]), roles: { api: true, worker: false } });
  // The same store and data directory as the API (the embedded queue is the store), no API.
  const config = loadConfig({
    SARWATCH_DATA_DIR: api.dataDir,
    SARWATCH_SAMPLES_DIR: '',
    HOST: '127.0.0.1',
    SARWATCH_METRICS_PORT: '0',
    ...(api.config.databaseUrl ? { DATABASE_URL: api.config.databaseUrl } : {}),
  });
  worker = await startService(config, {
    roles: { api: false, worker: true },
    queuePollMs: 50,
    registry: createRegistry([aoiEchoTestDetector('timeseries'), crashingTestDetector('oilslick')]),
  });
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
});

describe('issue 13: /metrics of a worker-only process (SARWATCH_METRICS_PORT)', () => {
  it('issue 13: the worker serves its job durations and failures by error code; the API process that ran nothing has none', async () => {
    expect(worker.url).toBe('');
    expect(worker.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const done = await api.client.submit('analyze', 'timeseries', { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' });
    expect((await waitForTerminal(api.client, done.job_id)).status).toBe('completed');
    const crashed = await api.client.submit('analyze', 'oilslick', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' });
    const failed = await waitForTerminal(api.client, crashed.job_id);
    expect(failed.error_code).toBe('PROCESSING_ERROR');

    // Both jobs counted (the failed one last): see scrapeUntil for why a single scrape may be early.
    const { res, text } = await scrapeUntil(`${worker.metricsUrl}/metrics`, (x) => (sample(x, 'sarwatch_job_failures_total', 'error_code="PROCESSING_ERROR"') ?? 0) >= 1);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'sarwatch_job_duration_seconds_count', 'endpoint_id="timeseries",outcome="completed"')).toBe(1);
    expect(sample(text, 'sarwatch_job_duration_seconds_count', 'endpoint_id="oilslick",outcome="failed"')).toBe(1);
    expect(sample(text, 'sarwatch_job_failures_total', 'error_code="PROCESSING_ERROR"')).toBe(1);
    // Store-wide gauges read at scrape time, the same in every process.
    expect(sample(text, 'sarwatch_jobs', 'state="completed",endpoint_id="timeseries"')).toBe(1);

    const apiText = await (await fetch(`${api.url}/metrics`)).text();
    expect(sample(apiText, 'sarwatch_job_duration_seconds_count', 'endpoint_id="timeseries",outcome="completed"')).toBeUndefined();
    expect(sample(apiText, 'sarwatch_jobs', 'state="completed",endpoint_id="timeseries"')).toBe(1);
  });

  it('issue 13: the listener serves GET /metrics only: anything else is a 404 envelope', async () => {
    const res = await fetch(`${worker.metricsUrl}/api/v1/jobs`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect((await fetch(`${worker.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('issue 13: without SARWATCH_METRICS_PORT a worker listens nowhere', () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ SARWATCH_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ SARWATCH_METRICS_PORT: 'x' })).toThrow(/SARWATCH_METRICS_PORT/);
  });
});
