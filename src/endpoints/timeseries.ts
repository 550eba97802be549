/** timeseries: per-cell backscatter series over every scene of one path/frame (at most 3 years, 50 km²). */
import { PeriodJobBody } from '../contract/bodies.ts';
import { defineEndpoint } from './types.ts';

export const timeseries = defineEndpoint({
  id: 'timeseries',
  input: 'period',
  aoi: 'polygon_or_upload',
  body: PeriodJobBody,
  limits: { areaSqkm: 50, maxPeriodYears: 3 },
  pricePerSqkm: 1,
  imagery: { analyze: 'RTC', detect: 'GRD' },
  selector: 'series',
  detector: async () => (await import('../analysis/modules/timeseries.ts')).timeseriesModule,
  result: 'geojson',
});
