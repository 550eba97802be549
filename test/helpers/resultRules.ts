/**
 * Checks of the spec's "Result: GeoJSON FeatureCollection" section, shared by the end-to-end
 * tests of every endpoint. Each check names the rule it enforces.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { geodesicAreaSqm } from '../../src/geo/index.ts';

export function expectResultRules(fc: any, opts: { propertyId?: boolean; confidence?: 'null' | 'number-or-null' } = {}): void {
  expect(fc.type, 'type is FeatureCollection').toBe('FeatureCollection');
  expect(fc, 'there is no crs member').not.toHaveProperty('crs');
  expect(Array.isArray(fc.features), 'features is an array').toBe(true);
  if (fc.features.length === 0) {
    expect(fc, 'bbox omitted when there are no detections').not.toHaveProperty('bbox');
    return;
  }
  let [minx, miny, maxx, maxy] = [Infinity, Infinity, -Infinity, -Infinity];
  fc.features.forEach((f: any, i: number) => {
    expect(f.type).toBe('Feature');
    expect(f.id, 'features[].id: integer, sequential from 1, on the Feature').toBe(i + 1);
    expect(f.geometry.type, 'features[].geometry is a Polygon').toBe('Polygon');
    for (const ring of f.geometry.coordinates) {
      expect(ring.length).toBeGreaterThanOrEqual(4);
      expect(ring[0]).toEqual(ring[ring.length - 1]);
      for (const [lon, lat] of ring) {
        expect(Math.abs(lon) <= 180 && Math.abs(lat) <= 90, 'WGS84 lon/lat').toBe(true);
        minx = Math.min(minx, lon);
        maxx = Math.max(maxx, lon);
        miny = Math.min(miny, lat);
        maxy = Math.max(maxy, lat);
      }
    }
    const area = geodesicAreaSqm(f.geometry);
    expect(f.properties.area_sqm / area, 'area_sqm: geodesic WGS84 area, holes subtracted').toBeCloseTo(1, 3);
    expect(f.properties, 'confidence always present').toHaveProperty('confidence');
    if (opts.confidence !== 'number-or-null') expect(f.properties.confidence, 'confidence null for ship/oilslick').toBeNull();
    if (opts.propertyId) expect(f.properties.id, 'oil slicks: properties.id equals the Feature id').toBe(f.id);
  });
  expect(fc.bbox, 'bbox [minx, miny, maxx, maxy] covering all detections').toHaveLength(4);
  expect(fc.bbox[0]).toBeLessThanOrEqual(minx + 1e-9);
  expect(fc.bbox[1]).toBeLessThanOrEqual(miny + 1e-9);
  expect(fc.bbox[2]).toBeGreaterThanOrEqual(maxx - 1e-9);
  expect(fc.bbox[3]).toBeGreaterThanOrEqual(maxy - 1e-9);
}

/** Feature count as GDAL's ogrinfo reads the file, or null when ogrinfo is not installed. */
export function ogrFeatureCount(fc: unknown): number | null {
  if (spawnSync('ogrinfo', ['--version']).status !== 0) return null;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-ogr-')), 'result.geojson');
  fs.writeFileSync(file, JSON.stringify(fc));
  const out = spawnSync('ogrinfo', ['-ro', '-al', '-so', file], { encoding: 'utf8', env: { ...process.env, GDAL_PAM_ENABLED: 'NO' } });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  if (out.status !== 0) throw new Error(`ogrinfo failed: ${out.stderr}`);
  const m = /Feature Count: (\d+)/.exec(out.stdout);
  if (!m) throw new Error(`ogrinfo output without a feature count:\n${out.stdout}`);
  expect(out.stdout).toMatch(/Geometry: Polygon/);
  return Number(m[1]);
}
