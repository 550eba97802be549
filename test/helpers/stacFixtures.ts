/**
 * Test archives made of STAC Item JSON files (the shape of the real items in
 * samples/stac-examples), so tests that need "a scene here on this date" go through
 * the real local indexer and catalog. No pixels: for tests of the job system only.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface FixtureScene {
  id: string;
  productType: 'GRD' | 'RTC' | 'SLC';
  /** ISO timestamp of the acquisition start. */
  start: string;
  /** [minLon, minLat, maxLon, maxLat] of the footprint. */
  bbox: [number, number, number, number];
  relativeOrbit?: number;
  orbitState?: 'ascending' | 'descending';
  platform?: 'sentinel-1a' | 'sentinel-1b';
}

export function stacItem(s: FixtureScene): object {
  const [x0, y0, x1, y1] = s.bbox;
  const end = new Date(Date.parse(s.start) + 25_000).toISOString().replace('.000', '');
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id: s.id,
    properties: {
      constellation: 'sentinel-1',
      platform: s.platform ?? 'sentinel-1a',
      instruments: ['c-sar'],
      start_datetime: s.start,
      end_datetime: end,
      datetime: s.start,
      'sar:instrument_mode': 'IW',
      'sar:product_type': s.productType,
      'sar:polarizations': ['VV', 'VH'],
      'sat:orbit_state': s.orbitState ?? 'ascending',
      'sat:relative_orbit': s.relativeOrbit ?? 88,
    },
    geometry: { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] },
    bbox: [x0, y0, x1, y1],
    assets: {
      vv: { href: `./${s.id}-vv.tif`, type: 'image/tiff; application=geotiff', roles: ['data'] },
      vh: { href: `./${s.id}-vh.tif`, type: 'image/tiff; application=geotiff', roles: ['data'] },
    },
    links: [],
  };
}

export function writeStacArchive(dir: string, scenes: FixtureScene[]): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const s of scenes) fs.writeFileSync(path.join(dir, `${s.id}.json`), JSON.stringify(stacItem(s), null, 1));
}

/**
 * Scenes over the North-Sea test squares (2.4–2.8 E, 51.2–51.5 N): GRD on 2022-06-12, RTC
 * every 12 days through 2023 on one path/frame.
 */
export function northSeaFixtureScenes(): FixtureScene[] {
  const scenes: FixtureScene[] = [
    { id: 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_F1A1', productType: 'GRD', start: '2022-06-12T17:33:29Z', bbox: [2.0, 51.0, 3.2, 51.8], relativeOrbit: 88 },
    { id: 'S1A_IW_SLC__1SDV_20220612T173329_20220612T173356_043633_05359A_F1A2', productType: 'SLC', start: '2022-06-12T17:33:29Z', bbox: [2.0, 51.0, 3.2, 51.8], relativeOrbit: 88 },
  ];
  for (let k = 0; k * 12 < 365; k++) {
    const start = new Date(Date.UTC(2023, 0, 3, 17, 33, 29) + k * 12 * 86_400_000);
    const t = start.toISOString().slice(0, 19) + 'Z';
    const compact = (d: Date) => d.toISOString().slice(0, 19).replace(/[-:]/g, '');
    scenes.push({ id: `FIXTURE_RTC_${t.slice(0, 10).replace(/-/g, '')}`, productType: 'RTC', start: t, bbox: [2.0, 51.0, 3.2, 51.8], relativeOrbit: 88 });
    const grdId = `S1A_IW_GRDH_1SDV_${compact(start)}_${compact(new Date(start.getTime() + 25_000))}_${String(46_500 + k * 175).padStart(6, '0')}_05A${String(k).padStart(3, '0')}_B${String(k).padStart(3, '0')}`;
    scenes.push({ id: grdId, productType: 'GRD', start: t, bbox: [2.0, 51.0, 3.2, 51.8], relativeOrbit: 88 });
  }
  return scenes;
}
