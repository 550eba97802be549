/**
 * A minimal ESRI Shapefile writer (polygons, one text attribute), zipped: the test input of
 * polygon uploads, built here so the tests need no GDAL. Format: ESRI Shapefile Technical
 * Description (1998) for .shp/.shx, dBASE III for .dbf.
 */
import { zip } from './zip.ts';

type Ring = [number, number][];

/** WGS84 as ESRI writes it in a .prj. */
export const WGS84_PRJ =
  'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';

/** Each feature: its rings (outer first; GeoJSON orientation, reversed here to the Shapefile's clockwise outer rings) and a name. */
export function shapefileZip(features: { rings: Ring[]; name: string }[], layer = 'fields'): Buffer {
  const records: Buffer[] = [];
  const index: Buffer[] = [];
  let offsetWords = 50;
  const all = features.flatMap((f) => f.rings.flat());
  const bbox = [Math.min(...all.map((p) => p[0])), Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[0])), Math.max(...all.map((p) => p[1]))];
  features.forEach((f, i) => {
    const rings = f.rings.map((r) => [...r].reverse());
    const points = rings.flat();
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const content = Buffer.alloc(44 + 4 * rings.length + 16 * points.length);
    content.writeInt32LE(5, 0);
    [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].forEach((v, k) => content.writeDoubleLE(v, 4 + 8 * k));
    content.writeInt32LE(rings.length, 36);
    content.writeInt32LE(points.length, 40);
    let start = 0;
    rings.forEach((r, k) => {
      content.writeInt32LE(start, 44 + 4 * k);
      start += r.length;
    });
    const base = 44 + 4 * rings.length;
    points.forEach(([x, y], k) => {
      content.writeDoubleLE(x, base + 16 * k);
      content.writeDoubleLE(y, base + 16 * k + 8);
    });
    const header = Buffer.alloc(8);
    header.writeInt32BE(i + 1, 0);
    header.writeInt32BE(content.length / 2, 4);
    records.push(header, content);
    const entry = Buffer.alloc(8);
    entry.writeInt32BE(offsetWords, 0);
    entry.writeInt32BE(content.length / 2, 4);
    index.push(entry);
    offsetWords += (8 + content.length) / 2;
  });
  const body = Buffer.concat(records);
  const shp = Buffer.concat([fileHeader(100 + body.length, bbox), body]);
  const shx = Buffer.concat([fileHeader(100 + 8 * features.length, bbox), ...index]);
  return zip([
    [`${layer}.shp`, shp],
    [`${layer}.shx`, shx],
    [`${layer}.dbf`, dbf(features.map((f) => f.name))],
    [`${layer}.prj`, Buffer.from(WGS84_PRJ)],
  ]);
}

function fileHeader(lengthBytes: number, bbox: number[]): Buffer {
  const h = Buffer.alloc(100);
  h.writeInt32BE(9994, 0);
  h.writeInt32BE(lengthBytes / 2, 24);
  h.writeInt32LE(1000, 28);
  h.writeInt32LE(5, 32);
  bbox.forEach((v, k) => h.writeDoubleLE(v, 36 + 8 * k));
  return h;
}

/** dBASE III with one character field NAME (20). */
function dbf(names: string[]): Buffer {
  const width = 20;
  const header = Buffer.alloc(32 + 32 + 1);
  header.writeUInt8(0x03, 0);
  header.writeUInt8(124, 1);
  header.writeUInt8(1, 2);
  header.writeUInt8(1, 3);
  header.writeUInt32LE(names.length, 4);
  header.writeUInt16LE(header.length, 8);
  header.writeUInt16LE(1 + width, 10);
  header.write('NAME', 32, 'latin1');
  header.write('C', 32 + 11, 'latin1');
  header.writeUInt8(width, 32 + 16);
  header.writeUInt8(0x0d, 64);
  const rows = names.map((n) => Buffer.from(` ${n.padEnd(width).slice(0, width)}`, 'latin1'));
  return Buffer.concat([header, ...rows, Buffer.from([0x1a])]);
}
