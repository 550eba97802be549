/**
 * A GRD season over two painted fields, for the idlefarm detect family: generated SAFE GRD
 * products (radar geometry) where a crop field's VH σ0 rises −21 → −14.5 dB over spring and
 * falls at harvest (VV +2 dB), and a bare field stays flat; a third field lies outside the
 * scene. Shared by test/analysis/idlefarm-grd.test.ts and test/e2e/idlefarm.test.ts.
 */
import type { Position } from '../../src/geo/types.ts';
import { GrdGeometry, writeSafeGrd } from '../../src/synth/index.ts';

export const GRD_SEASON_CENTER: [number, number] = [11.2, 45.1];
export const GRD_SEASON_DATES = 16;
const SIZE = 220;
const STEP_DAYS = 24;
/** Field boxes in radar geometry (lines/pixels of the full image). */
const CROP = { l0: 30, l1: 90, p0: 30, p1: 90 };
const BARE = { l0: 120, l1: 180, p0: 120, p1: 180 };

const db = (v: number) => 10 ** (v / 10);

function cropDb(day: number): [number, number] {
  const g = day >= 270 ? 0 : 1 / (1 + Math.exp(-(day - 150) / 10));
  return [-13 + 2 * g, -21 + 6.5 * g];
}

export interface GrdFieldSeason {
  /** One SAFE folder per date, ascending (2023-01-10 … every 24 days). */
  productPaths: string[];
  /** crop, bare, outside: properties `name`. */
  fields: { type: 'FeatureCollection'; features: { type: 'Feature'; geometry: { type: 'Polygon'; coordinates: Position[][] }; properties: { name: string } }[] };
}

export async function writeGrdFieldSeason(dir: string): Promise<GrdFieldSeason> {
  const geometry = new GrdGeometry({ center: GRD_SEASON_CENTER, width: SIZE, height: SIZE, passDirection: 'ascending', nearIncidenceDeg: 38 });
  const quad = (b: typeof CROP): Position[] => {
    const p = (line: number, pixel: number): Position => {
      const g = geometry.pixelToLonLat(line, pixel);
      return [g.lon, g.lat];
    };
    // Half a pixel inside the painted box, so every pixel centre of the field is painted.
    return [p(b.l0, b.p0), p(b.l0, b.p1), p(b.l1, b.p1), p(b.l1, b.p0), p(b.l0, b.p0)];
  };
  const fields: GrdFieldSeason['fields'] = {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [quad(CROP)] }, properties: { name: 'crop' } },
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [quad(BARE)] }, properties: { name: 'bare' } },
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[11.5, 45.3], [11.505, 45.3], [11.505, 45.305], [11.5, 45.305], [11.5, 45.3]]] }, properties: { name: 'outside' } },
    ],
  };
  const productPaths: string[] = [];
  for (let k = 0; k < GRD_SEASON_DATES; k++) {
    const day = 10 + k * STEP_DAYS;
    const [cropVv, cropVh] = cropDb(day);
    const paint = (_g: GrdGeometry, y0: number, rows: number, x0: number, w: number, vv: Float32Array | null, vh: Float32Array | null): void => {
      for (const [box, level] of [
        [CROP, [cropVv, cropVh]],
        [BARE, [-13, -21]],
      ] as const) {
        for (let line = Math.max(y0, box.l0 - 1); line <= Math.min(y0 + rows - 1, box.l1 + 1); line++) {
          for (let px = Math.max(x0, box.p0 - 1); px <= Math.min(x0 + w - 1, box.p1 + 1); px++) {
            const i = (line - y0) * w + (px - x0);
            if (vv) vv[i] = db(level[0]);
            if (vh) vh[i] = db(level[1]);
          }
        }
      }
    };
    const start = new Date(Date.UTC(2023, 0, 1, 17, 30) + (day - 1) * 86_400_000);
    const out = await writeSafeGrd(dir, { seed: 500 + k, start, center: GRD_SEASON_CENTER, width: SIZE, height: SIZE, nearIncidenceDeg: 38, wind: { speed: 5, directionDeg: 220 }, surfaces: [{ kind: 'land', polygon: [[[11, 44.9], [11.4, 44.9], [11.4, 45.3], [11, 45.3], [11, 44.9]]] }], overlay: paint });
    productPaths.push(out.productPath);
  }
  return { productPaths, fields };
}
