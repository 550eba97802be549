/** newbuilding: buildings that appear between an earlier and a later scene of one path/frame. */
import { PeriodJobBody } from '../contract/bodies.ts';
import { defineEndpoint } from './types.ts';

export const newbuilding = defineEndpoint({
  id: 'newbuilding',
  input: 'period',
  aoi: 'polygon_or_upload',
  body: PeriodJobBody,
  limits: { areaSqkm: 30_000 },
  pricePerSqkm: 0.1,
  imagery: { analyze: 'RTC', detect: 'GRD' },
  selector: 'pair',
  detector: async () => (await import('../analysis/modules/change.ts')).newbuildingModule,
  result: 'geojson',
});
