// The near-shore path's segmenter field per coastal window of a scene (issue 23 §5 with §1; not
// a test: tests never time): for each tile whose near-shore band reaches its core, the window
// cut as tile.ts cropTile does, one thread — the deferred field as the sea screen alone gives it
// and with the cells out of the candidates' reach deferred too (cellsOutOfReach), CPU s, cells
// deferred, and whether the target the land mask leaves and the distance at every anchor cell
// agree. docs/ship.md "The near-shore path's cost, exactly".
//   npx tsx test/analysis/nearShoreWindowCost.ts DIR      (DIR holds one .SAFE, e.g. a generated coastal IW scene)
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { calibrateDnInPlace } from '../../src/analysis/ship/calibrate.ts';
import { nearShoreBand } from '../../src/analysis/ship/nearShore.ts';
import { resolveShipParams } from '../../src/analysis/ship/params.ts';
import { readShipTile } from '../../src/analysis/ship/sceneTile.ts';
import { deferredSeaLandField, landMaskOfField, withLandDistance } from '../../src/analysis/ship/seaLand.ts';
import { requiredHalo } from '../../src/analysis/ship/tile.ts';
import { openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR } from '../../src/imagery/index.ts';

const cpu = <T>(f: () => T): [T, number] => {
  const t0 = process.cpuUsage();
  const o = f();
  const d = process.cpuUsage(t0);
  return [o, (d.user + d.system) / 1e6];
};
const dir = process.argv[2];
if (!dir) throw new Error('usage: nearShoreWindowCost.ts DIR');
const product = await openSafeProduct(join(dir, readdirSync(dir).find((f) => f.endsWith('.SAFE'))!));
const params = resolveShipParams({});
const band0 = product.bands.VH!;
const spacing = { range: band0.annotation.rangePixelSpacing, azimuth: band0.annotation.azimuthPixelSpacing };
const plan = planTiles(product.width, product.height, params.tileSize, requiredHalo(params, spacing), product.validWindow ?? undefined);
const tot = [0, 0, 0, 0, 0];
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
  const cut = <T extends Float32Array | Uint8Array>(a: T): T => { const o = new (a.constructor as new (n: number) => T)(win.width * win.height); for (let r = 0; r < win.height; r++) o.set(a.subarray((win.y0 + r) * w + win.x0, (win.y0 + r) * w + win.x0 + win.width), r * win.width); return o; };
  const v = cut(vh), va = cut(valid), la = cut(land);
  const anchor = new Uint8Array(va.length); for (let k = 0; k < va.length; k++) anchor[k] = va[k]! & (la[k]! ^ 1);
  const [a, tA] = cpu(() => withLandDistance(deferredSeaLandField(v, va, win.width, win.height, spacing), spacing));
  const [b, tB] = cpu(() => withLandDistance(deferredSeaLandField(v, va, win.width, win.height, spacing, undefined, anchor), spacing));
  // The reads: the target left by the land mask, and the distance at every anchor cell.
  const ma = landMaskOfField(a, win.width, win.height, undefined, la), mb = landMaskOfField(b, win.width, win.height, undefined, la);
  let same = true;
  for (let k = 0; k < va.length && same; k++) if ((va[k]! & (ma[k]! ^ 1)) !== (va[k]! & (mb[k]! ^ 1))) same = false;
  for (let r = 0; r < win.height && same; r++) for (let c = 0; c < win.width; c++) if (anchor[r * win.width + c]) { const k = Math.floor(r / a.cellRows) * a.cols + Math.floor(c / a.cellCols); if (a.distanceM![k] !== b.distanceM![k]) { same = false; break; } }
  tot[0]! += tA; tot[1]! += tB; tot[2]! += a.deferred?.count ?? 0; tot[3]! += b.deferred?.count ?? 0; tot[4]! += b.deferred?.outOfReach ?? 0;
  console.log(`tile ${i}: window ${win.width}×${win.height} | field ${tA.toFixed(2)} → ${tB.toFixed(2)} s | deferred ${a.deferred?.count ?? 0} → ${b.deferred?.count ?? 0} (${b.deferred?.outOfReach ?? 0} out of reach) | reads same: ${same}`);
}
console.log(`${n} windows: field ${tot[0]!.toFixed(1)} → ${tot[1]!.toFixed(1)} CPU s | deferred ${(tot[2]! / 1e6).toFixed(2)} M → ${(tot[3]! / 1e6).toFixed(2)} M cells (${(tot[4]! / 1e6).toFixed(2)} M out of reach)`);
await product.close();
