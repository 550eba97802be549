// The segmenter's feature planes on the near-shore path's coastal windows of a scene (issue 23 §5
// with §1; not a test: tests never time): for each tile whose near-shore band reaches its core,
// the window cut as tile.ts cropTile does, one thread, as the detector computes its field —
// seaLandFeatures, then the anchored field (seaLandProbabilityAnchored; in a module without it
// the deferred trees with the cells out of reach, cellsOutOfReach) and the distances — CPU s of
// the features and of the rest — then, untimed, SHA-256 over every window's planes, and over
// what the detector reads: the land decisions and distances of the cells holding an anchor
// pixel and every land probability (resolveLandField), before the field is released (equal
// hashes: the same bits). With a path to another copy of seaLand.ts (e.g. main's, checked out
// elsewhere) it measures that one, for alternate runs.
//   npx tsx test/analysis/seaLandWindowCost.ts DIR [path/to/seaLand.ts]   (DIR holds one .SAFE)
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { calibrateDnInPlace } from '../../src/analysis/ship/calibrate.ts';
import { nearShoreBand } from '../../src/analysis/ship/nearShore.ts';
import { resolveShipParams } from '../../src/analysis/ship/params.ts';
import { readShipTile } from '../../src/analysis/ship/sceneTile.ts';
import { requiredHalo } from '../../src/analysis/ship/tile.ts';
import { openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR } from '../../src/imagery/index.ts';

type SeaLand = typeof import('../../src/analysis/ship/seaLand.ts');
const dir = process.argv[2];
if (!dir) throw new Error('usage: seaLandWindowCost.ts DIR [path/to/seaLand.ts]');
const sl = (await import(process.argv[3] ? pathToFileURL(process.argv[3]).href : '../../src/analysis/ship/seaLand.ts')) as SeaLand & { releaseSeaLandField?: SeaLand['releaseSeaLandField']; seaLandProbabilityAnchored?: SeaLand['seaLandProbabilityAnchored'] };
const cpu = <T>(f: () => T): [T, number] => {
  const t0 = process.cpuUsage();
  const o = f();
  const d = process.cpuUsage(t0);
  return [o, (d.user + d.system) / 1e6];
};
const bytes = (a: Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const product = await openSafeProduct(join(dir, readdirSync(dir).find((f) => f.endsWith('.SAFE'))!));
const params = resolveShipParams({});
const band0 = product.bands.VH!;
const spacing = { range: band0.annotation.rangePixelSpacing, azimuth: band0.annotation.azimuthPixelSpacing };
const plan = planTiles(product.width, product.height, params.tileSize, requiredHalo(params, spacing), product.validWindow ?? undefined);
const model = sl.seaLandModel();
const planesHash = createHash('sha256');
const fieldHash = createHash('sha256');
let tFeatures = 0;
let tRest = 0;
let cells = 0;
let n = 0;
for (const [i, tile] of plan.tiles.entries()) {
  const input = await readShipTile(product, { vh: 'VH', calibrateOnTask: true, floor: SIGMA_FLOOR_LINEAR, denoise: false, landMask: true, landBufferM: params.landBufferM, pixelSpacing: spacing }, tile);
  const { width: w, height: h, valid, land } = input;
  if (!land) continue;
  const band = nearShoreBand(land, valid, w, h, spacing, 2000, input.core, 3000);
  if (!band?.reachesCore) continue;
  n++;
  const vh = input.sigma0.vh!;
  calibrateDnInPlace(vh, valid, w, h, input.origin!.row, input.calibrate!.vh!);
  const win = band.window;
  const cut = <T extends Float32Array | Uint8Array>(a: T): T => {
    const o = new (a.constructor as new (n: number) => T)(win.width * win.height);
    for (let r = 0; r < win.height; r++) o.set(a.subarray((win.y0 + r) * w + win.x0, (win.y0 + r) * w + win.x0 + win.width), r * win.width);
    return o;
  };
  const v = cut(vh);
  const va = cut(valid);
  const la = cut(land);
  const anchor = new Uint8Array(va.length);
  for (let k = 0; k < va.length; k++) anchor[k] = va[k]! & (la[k]! ^ 1);
  const [f, tf] = cpu(() => sl.seaLandFeatures(v, va, win.width, win.height, spacing));
  planesHash.update(bytes(f.planes));
  const [field, tr] = cpu(() =>
    sl.withLandDistance(
      sl.seaLandProbabilityAnchored ? sl.seaLandProbabilityAnchored(f, model, anchor, win.width, win.height, spacing) : sl.seaLandProbabilityDeferred(f, model, sl.cellsOutOfReach(anchor, win.width, win.height, f, spacing) ?? undefined),
      spacing,
    ),
  );
  const read = new Float32Array(2 * f.rows * f.cols).fill(Number.NaN);
  for (let r = 0; r < win.height; r++)
    for (let c = 0; c < win.width; c++) {
      if (!anchor[r * win.width + c]) continue;
      const k = Math.floor(r / f.cellRows) * f.cols + Math.floor(c / f.cellCols);
      read[2 * k] = field.land[k]! >= model.threshold ? 1 : 0;
      read[2 * k + 1] = field.distanceM![k]!;
    }
  fieldHash.update(bytes(read)).update(bytes(sl.resolveLandField(field)));
  sl.releaseSeaLandField?.(field);
  tFeatures += tf;
  tRest += tr;
  cells += f.rows * f.cols;
  console.log(`tile ${i}: window ${win.width}×${win.height} | features ${tf.toFixed(2)} s | trees and distances ${tr.toFixed(2)} s`);
}
console.log(`${n} windows, ${(cells / 1e6).toFixed(2)} M cells: features ${tFeatures.toFixed(2)} CPU s | trees and distances ${tRest.toFixed(2)} CPU s | planes ${planesHash.digest('hex').slice(0, 16)} | field ${fieldHash.digest('hex').slice(0, 16)}`);
await product.close();
