/**
 * Issue 14, part 1: one descriptor per endpoint. The API, the worker's defaults and the CLI
 * read the same registry, so these check that each consumer follows it.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointOf, findEndpoint, imageryProductFor, resultKindOf } from '../../src/endpoints/index.ts';
import { SCENE_SELECTORS } from '../../src/catalog/selection.ts';
import { ENDPOINT_IDS, SUBMITTABLE_ENDPOINTS } from '../../src/contract/enums.ts';
import { loadConfig } from '../../src/config.ts';
import { defaultRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { CLI_DETECTORS } from '../../src/cli/analyze.ts';

describe('issue 14: endpoint descriptors', () => {
  it('the contract, the CLI and the detector registry list exactly the registry endpoints', () => {
    const ids = ENDPOINTS.map((e) => e.id);
    expect(ids).toEqual(['ship', 'oilslick', 'newbuilding', 'disappearbuilding', 'timeseries', 'idlefarm']);
    expect(SUBMITTABLE_ENDPOINTS).toEqual(ids);
    expect(ENDPOINT_IDS).toEqual(ids);
    expect(CLI_DETECTORS).toEqual(ids);
    expect([...defaultRegistry().keys()]).toEqual(ids);
  });

  it('configuration defaults are the descriptors’ limits and prices; the environment overrides one endpoint', () => {
    const config = loadConfig({ SARWATCH_AREA_LIMIT_SQKM_TIMESERIES: '20', SARWATCH_PRICE_PER_SQKM_SHIP: '0.5' });
    expect(config.areaLimitsSqkm).toEqual({ ship: 100_000, oilslick: 100_000, newbuilding: 30_000, disappearbuilding: 30_000, timeseries: 20, idlefarm: 100 });
    expect(config.pricesPerSqkm).toEqual({ ship: 0.5, oilslick: 0.01, newbuilding: 0.1, disappearbuilding: 0.1, timeseries: 1, idlefarm: 1 });
  });

  it('each descriptor names a scene selector of the catalog, and its input pattern fits the selector', () => {
    for (const e of ENDPOINTS) {
      expect(typeof SCENE_SELECTORS[e.selector]).toBe('function');
      expect(e.input === 'scene').toBe(e.selector === 'nearest');
    }
    expect(endpointOf('timeseries').limits.maxPeriodYears).toBe(3);
    expect(imageryProductFor('analyze', 'newbuilding')).toBe('RTC');
    expect(imageryProductFor('detect', 'timeseries')).toBe('GRD');
    expect(() => imageryProductFor('analyze', 'cars')).toThrow(/unknown endpoint/);
  });

  it('each descriptor loads the detector adapter of its own endpoint', async () => {
    for (const e of ENDPOINTS) expect((await e.detector()).endpointId).toBe(e.id);
  });

  it('result kinds: zip for idlefarm, GeoJSON for the other registry endpoints and for unknown types', () => {
    for (const e of ENDPOINTS) expect(resultKindOf(e.id)).toBe(e.id === 'idlefarm' ? 'zip' : 'geojson');
    expect(resultKindOf('cars')).toBe('geojson');
    expect(findEndpoint('idlefarm')?.aoi).toBe('upload');
    expect(endpointOf('idlefarm').limits.maxPeriodYears).toBe(1);
  });
});
