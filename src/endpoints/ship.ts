/** ship: vessels on one GRD scene (scene_id, or the scene nearest `date` over an AOI). */
import { SceneJobBody } from '../contract/bodies.ts';
import { defineEndpoint } from './types.ts';

export const ship = defineEndpoint({
  id: 'ship',
  input: 'scene',
  aoi: 'polygon_or_upload',
  body: SceneJobBody,
  limits: { areaSqkm: 100_000 },
  pricePerSqkm: 0.01,
  imagery: { analyze: 'GRD', detect: 'GRD' },
  selector: 'nearest',
  detector: async () => (await import('../analysis/modules/ship.ts')).shipModule,
  result: 'geojson',
});
