/**
 * Issue 10.5, coverage on jobs. Spec, Coverage object: `polygon` is "in job responses present
 * only for measured coverage; a preview carries the predicted extent".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_SQUARE, TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { geodesicAreaSqkm, parseAoiWkt } from '../../src/geo/index.ts';

const MEASURED_EXTENT = 'POLYGON ((2.5 51.3, 2.54 51.3, 2.54 51.35, 2.5 51.35, 2.5 51.3))';

/** A time-series stand-in that reports measured coverage, as the real one does. */
const measuringTimeseries: AnalysisModule = {
  endpointId: 'timeseries',
  async run() {
    return {
      result: { type: 'FeatureCollection', features: [] },
      measured: {
        areaSqkm: 15,
        coverage: { method: 'measured', requested_area_sqkm: 19.3, ratio: 0.77, polygon: MEASURED_EXTENT },
      },
    };
  },
};

let t: TestService;
beforeAll(async () => {
  t = await startTestService({}, { registry: createRegistry([aoiEchoTestDetector('ship'), measuringTimeseries]) });
});
afterAll(() => t.close());

const shipBody = { satellite_id: 'sentinel-1' as const, polygon: SMALL_SQUARE, date: '2022-06-20' };
const storedCoverage = async (jobId: string) =>
  JSON.parse((await t.service.db.selectFrom('jobs').select('coverage').where('id', '=', jobId).executeTakeFirstOrThrow()).coverage!);

describe('issue 10.5: coverage.polygon on a job only when measured (spec: Coverage object)', () => {
  it('issue 10.5: a ship job with a polygon has estimated coverage without polygon; the preview of the same body carries the predicted extent', async () => {
    const preview = await t.client.preview('ship', shipBody);
    expect(preview.coverage!.method).toBe('estimated');
    expect(geodesicAreaSqkm(parseAoiWkt(preview.coverage!.polygon!))).toBeCloseTo(geodesicAreaSqkm(parseAoiWkt(SMALL_SQUARE)), 3);

    const { job_id } = await t.client.submit('analyze', 'ship', shipBody);
    const job = await waitForTerminal(t.client, job_id);
    expect(job.status).toBe('completed');
    expect(job.coverage).toEqual({
      method: 'estimated',
      requested_area_sqkm: preview.coverage!.requested_area_sqkm,
      ratio: 1,
      polygon: null,
    });
    // Not stored either: the job row holds what the job shows.
    expect((await storedCoverage(job_id)).polygon).toBeNull();
  });

  it('issue 10.5: a job row stored with an estimated polygon (before this rule) is shown without it', async () => {
    const { job_id } = await t.client.submit('analyze', 'ship', shipBody);
    await waitForTerminal(t.client, job_id);
    const old = { method: 'estimated', requested_area_sqkm: 77.4, ratio: 1, polygon: SMALL_SQUARE };
    await t.service.db.updateTable('jobs').set({ coverage: JSON.stringify(old) }).where('id', '=', job_id).execute();
    expect((await t.client.getJob(job_id)).coverage).toEqual({ ...old, polygon: null });
  });

  it('issue 10.5: measured coverage (timeseries) keeps its polygon on the job', async () => {
    const { job_id } = await t.client.submit('analyze', 'timeseries', {
      satellite_id: 'sentinel-1',
      polygon: TINY_SQUARE,
      date_start: '2023-01-01',
      date_end: '2023-12-31',
    });
    const job = await waitForTerminal(t.client, job_id);
    expect(job.status).toBe('completed');
    expect(job.coverage).toEqual({ method: 'measured', requested_area_sqkm: 19.3, ratio: 0.77, polygon: MEASURED_EXTENT });
    expect((await storedCoverage(job_id)).polygon).toBe(MEASURED_EXTENT);
  });
});
