// The near-shore path's cost and its detections' bits (issue 23 §5 with §1; not a test: tests
// never time). For each .SAFE under DIR (one level of folders): `detectShipsInProduct` with
// nearShore on (or off with --off), on this thread, its CPU s, the detections (how many the
// classifier judged) and the SHA-256 of the detections serialised whole (pixels, features,
// probabilities) — the figure "same detections bit for bit" compares. With --tiles, instead:
// per tile whose near-shore band reaches its core, detectShipsInTile with nearShore off and on
// (one thread, CPU s); run under `node --cpu-prof` for the stages. docs/ship.md "The near-shore
// path's cost, exactly".
//   npx tsx test/analysis/nearShoreCost.ts DIR [--off] [--tiles [--on-only|--off-only]] [--max-tiles N]
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { detectShipsInProduct } from '../../src/analysis/ship/index.ts';
import { nearShoreBand } from '../../src/analysis/ship/nearShore.ts';
import { resolveShipParams } from '../../src/analysis/ship/params.ts';
import { readShipTile } from '../../src/analysis/ship/sceneTile.ts';
import { detectShipsInTile, requiredHalo, type ShipDetection } from '../../src/analysis/ship/tile.ts';
import { openSafeProduct, planTiles, SIGMA_FLOOR_LINEAR } from '../../src/imagery/index.ts';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!dir) throw new Error('usage: nearShoreCost.ts DIR [--off] [--tiles] [--max-tiles N]');
const off = args.includes('--off');
const maxTiles = args.includes('--max-tiles') ? Number(args[args.indexOf('--max-tiles') + 1]) : Infinity;

const cpu = async <T>(f: () => T | Promise<T>): Promise<[T, number]> => {
  const t0 = process.cpuUsage();
  const o = await f();
  const d = process.cpuUsage(t0);
  return [o, (d.user + d.system) / 1e6];
};
const serialise = (v: unknown): string => JSON.stringify(v, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x as Float32Array) : typeof x === 'number' && !Number.isFinite(x) ? String(x) : x));
const sha = (v: unknown): string => createHash('sha256').update(serialise(v)).digest('hex');

const safes: string[] = [];
for (const f of readdirSync(dir).sort()) {
  const p = join(dir, f);
  if (f.endsWith('.SAFE')) safes.push(p);
  else if (statSync(p).isDirectory()) for (const g of readdirSync(p).sort()) if (g.endsWith('.SAFE')) safes.push(join(p, g));
}
const params = resolveShipParams({ nearShore: { enabled: !off } });
for (const path of safes) {
  const product = await openSafeProduct(path);
  const name = path.split('/').pop()!.slice(17, 32);
  if (!args.includes('--tiles')) {
    const [report, t] = await cpu(() => detectShipsInProduct(product, { params: { nearShore: { enabled: !off } } }));
    const byClassifier = report.detections.filter((d) => (d as ShipDetection).candidate).length;
    console.log(`${name} nearShore ${off ? 'off' : 'on'}: ${t.toFixed(2)} CPU s | ${report.detections.length} detections (${byClassifier} by the classifier) | ${report.tiles} tiles | SHA-256 ${sha(report.detections)}`);
  } else {
    const band0 = (product.bands.VH ?? product.bands.VV)!;
    const spacing = { range: band0.annotation.rangePixelSpacing, azimuth: band0.annotation.azimuthPixelSpacing };
    const plan = planTiles(product.width, product.height, params.tileSize, requiredHalo(params, spacing), product.validWindow ?? undefined);
    const total = [0, 0];
    let n = 0;
    for (const [i, tile] of plan.tiles.entries()) {
      if (n >= maxTiles) break;
      const read = () => readShipTile(product, { vh: 'VH', calibrateOnTask: true, floor: SIGMA_FLOOR_LINEAR, denoise: false, landMask: true, landBufferM: params.landBufferM, pixelSpacing: spacing }, tile);
      const input = await read();
      if (!input.land) continue;
      const band = nearShoreBand(input.land, input.valid, input.width, input.height, spacing, params.nearShore.distanceM, input.core, 3000);
      if (!band?.reachesCore) continue;
      n++;
      const [a, tOff] = args.includes('--on-only') ? [[], 0] : await cpu(() => detectShipsInTile(input, { nearShore: { enabled: false } }));
      const again = await read();
      const [b, tOn] = args.includes('--off-only') ? [[], 0] : await cpu(() => detectShipsInTile(again, { nearShore: { enabled: true } }));
      total[0]! += tOff;
      total[1]! += tOn;
      console.log(`${name} tile ${i}: window ${band.window.width}×${band.window.height} | off ${tOff.toFixed(2)} s (${a.length}) | on ${tOn.toFixed(2)} s (${b.length}, SHA-256 ${sha(b).slice(0, 16)})`);
    }
    console.log(`${name}: ${n} coastal tiles, off ${total[0]!.toFixed(2)} | on ${total[1]!.toFixed(2)} CPU s`);
  }
  await product.close();
}
