/** oilslick: dark spots on the VV band of one GRD scene (same input as ship). */
import { SceneJobBody } from '../contract/bodies.ts';
import { defineEndpoint } from './types.ts';

export const oilslick = defineEndpoint({
  id: 'oilslick',
  input: 'scene',
  aoi: 'polygon_or_upload',
  body: SceneJobBody,
  limits: { areaSqkm: 100_000 },
  pricePerSqkm: 0.01,
  imagery: { analyze: 'GRD', detect: 'GRD' },
  selector: 'nearest',
  detector: async () => (await import('../analysis/modules/oilslick.ts')).oilslickModule,
  result: 'geojson',
});
