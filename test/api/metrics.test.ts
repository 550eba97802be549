/**
 * GET /metrics: Prometheus text with real figures after a completed and a failed job, the
 * route label a pattern (never a job id), /metrics not measuring itself, and one registry
 * per service (two services in one process keep separate counts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector, crashingTestDetector } from '../helpers/testDetectors.ts';
import { sample, scrapeUntil } from '../helpers/metrics.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';

let t: TestService;
let other: TestService;
beforeAll(async () => {
  t = await startTestService({}, { registry: createRegistry([aoiEchoTestDetector('timeseries'), crashingTestDetector('oilslick')]) });
  // No worker here: what is submitted stays pending, so the queue depth has something to show.
  other = await startTestService({}, { registry: createRegistry([]), roles: { api: true, worker: false } });
});
afterAll(async () => {
  await t?.close();
  await other?.close();
});

const periodBody = { satellite_id: 'sentinel-1' as const, polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' };

describe('GET /metrics', () => {
  it('reports jobs by state, job durations, failures by code and request latency by route pattern', async () => {
    const done = await t.client.submit('analyze', 'timeseries', periodBody);
    expect((await waitForTerminal(t.client, done.job_id)).status).toBe('completed');
    const crashed = await t.client.submit('analyze', 'oilslick', { satellite_id: 'sentinel-1', polygon: SMALL_SQUARE, date: '2022-06-12' });
    const failed = await waitForTerminal(t.client, crashed.job_id);
    expect(failed.status).toBe('failed');
    expect(failed.error_code).toBe('PROCESSING_ERROR');
    const polled = await t.http('GET', `/api/v1/jobs/${done.job_id}`);
    expect(polled.status).toBe(200);

    // Both jobs counted (the failed one last): see scrapeUntil for why a single scrape may be early.
    const { res, text } = await scrapeUntil(`${t.url}/metrics`, (x) => (sample(x, 'sarwatch_job_failures_total', 'error_code="PROCESSING_ERROR"') ?? 0) >= 1);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);

    expect(sample(text, 'sarwatch_jobs', 'state="completed",endpoint_id="timeseries"')).toBe(1);
    expect(sample(text, 'sarwatch_queue_depth', 'endpoint_id="timeseries"')).toBeUndefined(); // nothing pending
    expect(sample(text, 'sarwatch_job_duration_seconds_count', 'endpoint_id="timeseries",outcome="completed"')).toBe(1);
    expect(sample(text, 'sarwatch_jobs', 'state="failed",endpoint_id="oilslick"')).toBe(1);
    expect(sample(text, 'sarwatch_job_duration_seconds_count', 'endpoint_id="oilslick",outcome="failed"')).toBe(1);
    expect(sample(text, 'sarwatch_job_failures_total', 'error_code="PROCESSING_ERROR"')).toBe(1);

    const byPattern = sample(text, 'sarwatch_http_request_duration_seconds_count', 'method="GET",route="/api/v1/jobs/:job_id",status="200"');
    expect(byPattern).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(done.job_id);
    expect(text).not.toMatch(/route="\/metrics"/);
  });

  it('counts pending jobs as queue depth, per service: another service in the same process has its own figures', async () => {
    await other.client.submit('analyze', 'timeseries', periodBody);
    const text = await (await fetch(`${other.url}/metrics`)).text();
    expect(sample(text, 'sarwatch_queue_depth', 'endpoint_id="timeseries"')).toBe(1);
    expect(sample(text, 'sarwatch_jobs', 'state="pending",endpoint_id="timeseries"')).toBe(1);
    expect(sample(text, 'sarwatch_jobs', 'state="completed",endpoint_id="timeseries"')).toBeUndefined();
    expect(text).toContain('# TYPE sarwatch_job_duration_seconds histogram');
    expect(text).not.toMatch(/^sarwatch_job_duration_seconds_count\{/m);
  });

  it('is listed in the OpenAPI document under the service tag', async () => {
    const doc = (await t.http('GET', '/openapi.json', { key: null })).json;
    expect(doc.paths['/metrics'].get.tags).toEqual(['service']);
  });
});
