/**
 * idlefarm: which of the uploaded fields lay fallow over a season — no crop growth cycle, no
 * harvest and no meadow cuts in their VH, VV and VH/VV series (docs/idlefarm.md). The fields are a polygon upload (`polygon_id`
 * only); the scenes are every scene of the best path/frame in the period, as for timeseries.
 * Credits on the fields' area covered by that path/frame (a fully covered upload: its
 * `area_sqkm`), 1 credit per km²; a season of at most one year over at most 100 km² of fields.
 */
import { FieldsJobBody } from '../contract/bodies.ts';
import { defineEndpoint } from './types.ts';

export const idlefarm = defineEndpoint({
  id: 'idlefarm',
  input: 'period',
  aoi: 'upload',
  body: FieldsJobBody,
  limits: { areaSqkm: 100, maxPeriodYears: 1 },
  pricePerSqkm: 1,
  imagery: { analyze: 'RTC', detect: 'GRD' },
  selector: 'series',
  detector: async () => (await import('../analysis/modules/idlefarm.ts')).idlefarmModule,
  result: 'zip',
});
