// The cost of the scene sea/land segmenter on one coastal tile (issue 23 §1/§5; not a test:
// tests never time): the demo port scene's first tile (06-13, VH σ0, its halo window, as
// detectShipsInProduct reads it), one thread. Prints CPU seconds of the default detector, the
// segmenter's feature planes, its trees and the field, and the field's checksum; then the
// detector's deferred field (the sea screen: trees skipped where a bound proves sea), its
// trees alone, the share of cells deferred, and whether it equals the full field resolved.
//   npx tsx test/analysis/seaLandCost.ts [repeats]        (needs the demo archive's cache)
// With SEA_LAND_DUMP=file the field's land probabilities are written there (Float32, raw).

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calibrateDnInPlace } from '../../src/analysis/ship/calibrate.ts';
import { resolveShipParams } from '../../src/analysis/ship/params.ts';
import { readShipTile } from '../../src/analysis/ship/sceneTile.ts';
import { deferredSeaLandField, resolveLandField, seaLandFeatures, seaLandField, seaLandModel, seaLandProbability, seaLandProbabilityDeferred } from '../../src/analysis/ship/seaLand.ts';
import { detectShipsInTile, requiredHalo } from '../../src/analysis/ship/tile.ts';
import { openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR } from '../../src/imagery/index.ts';
import { DEMO_CACHE_DIR } from '../helpers/demoArchive.ts';

const cpu = <T>(f: () => T): [T, number] => {
  const t0 = process.cpuUsage();
  const out = f();
  const d = process.cpuUsage(t0);
  return [out, (d.user + d.system) / 1e6];
};

const repeats = Number(process.argv[2] ?? 1);
const dir = join(DEMO_CACHE_DIR, 'grd');
const safe = readdirSync(dir).filter((f) => f.endsWith('.SAFE')).sort()[0]!;
const product = await openSafeProduct(join(dir, safe));
const params = resolveShipParams({});
const band = product.bands.VH!;
const spacing = { range: band.annotation.rangePixelSpacing, azimuth: band.annotation.azimuthPixelSpacing };
const plan = planTiles(product.width, product.height, params.tileSize, requiredHalo(params, spacing), product.validWindow ?? undefined);
const tile = plan.tiles[0]!;
const input = await readShipTile(product, { vh: 'VH', calibrateOnTask: true, floor: SIGMA_FLOOR_LINEAR, denoise: false, landMask: true, landBufferM: params.landBufferM, pixelSpacing: spacing }, tile);
await product.close();
const { width: w, height: h, valid } = input;
const vh = input.sigma0.vh!;
calibrateDnInPlace(vh, valid, w, h, input.origin!.row, input.calibrate!.vh!);
const { calibrate: _, ...sigma } = input;
let land = 0;
for (const v of input.land ?? []) land += v;
console.log(`${safe.slice(17, 25)} tile 0: ${w} × ${h} px, ${((100 * land) / (w * h)).toFixed(1)} % land mask`);
seaLandModel();
for (let k = 0; k < repeats; k++) {
  const [found, tDefault] = cpu(() => detectShipsInTile(sigma, { nearShore: { enabled: false } }));
  const [features, tFeatures] = cpu(() => seaLandFeatures(vh, valid, w, h, spacing));
  const [field, tTrees] = cpu(() => seaLandProbability(features, seaLandModel()));
  const [, tField] = cpu(() => seaLandField(vh, valid, w, h, spacing));
  let sum = 0;
  let cells = 0;
  let called = 0;
  for (const v of field.land) if (v === v) (sum += v, cells++, (called += v >= seaLandModel().threshold ? 1 : 0));
  console.log(
    `default detector ${tDefault.toFixed(2)} s (${found.length} detections) | features ${tFeatures.toFixed(2)} s | trees ${tTrees.toFixed(2)} s | field ${tField.toFixed(2)} s | ${cells} cells, Σp ${sum.toFixed(6)}, ${called} land`,
  );
  const [lazy, tLazyTrees] = cpu(() => seaLandProbabilityDeferred(features, seaLandModel()));
  const [, tLazyField] = cpu(() => deferredSeaLandField(vh, valid, w, h, spacing));
  const deferred = lazy.deferred?.count ?? 0;
  const same = Buffer.compare(Buffer.from(resolveLandField(lazy).buffer), Buffer.from(field.land.buffer)) === 0;
  console.log(`  deferred: trees ${tLazyTrees.toFixed(2)} s | field ${tLazyField.toFixed(2)} s | ${deferred} cells deferred (${((100 * deferred) / cells).toFixed(1)} %) | resolved = full field: ${same}`);
  if (k === 0 && process.env.SEA_LAND_DUMP) writeFileSync(process.env.SEA_LAND_DUMP, field.land);
}
