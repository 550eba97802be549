// The sea/land segmenter's feature planes alone (issue 23 §5 with §1; not a test: tests never
// time): seaLandFeatures on a generated coastal window of real size (a 3434² tile at 10 m:
// 1717² cells; textured land, a pier, vessels, a no-data strip), one thread, CPU s per run and
// the planes' SHA-256 (equal hashes: the same bits). With a path to another copy of seaLand.ts
// (e.g. main's, checked out elsewhere) it times that one instead, for alternate before/after runs.
//   npx tsx test/analysis/seaLandFeaturesCost.ts [repeats] [size] [path/to/seaLand.ts]
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { gammaClutter } from './synthSea.ts';

const repeats = Number(process.argv[2] ?? 3);
const size = Number(process.argv[3] ?? 3434);
const module = process.argv[4] ? pathToFileURL(process.argv[4]).href : '../../src/analysis/ship/seaLand.ts';
const { seaLandFeatures } = (await import(module)) as typeof import('../../src/analysis/ship/seaLand.ts');

const W = size;
const H = size;
const values = gammaClutter(W, H, { looks: 4, seed: 5, mean: 0.01 });
const land = gammaClutter(W, H, { looks: 1, seed: 6, mean: 0.4, textureShape: 0.5 });
const valid = new Uint8Array(W * H).fill(1);
for (let r = 0; r < H; r++)
  for (let c = 0; c < W; c++) {
    const p = r * W + c;
    const coast = 0.35 * W + 0.15 * W * Math.sin(r / 137);
    if (c < coast || (r > 0.4 * H && r < 0.45 * H && c < 0.7 * W)) values[p] = land[p]!;
    if (c >= W - 23 || r < 11) valid[p] = 0;
  }
for (let v = 0; v < 200; v++) {
  const r0 = 20 + ((v * 97) % (H - 40));
  const c0 = Math.floor(0.6 * W) + ((v * 53) % Math.floor(0.3 * W));
  for (let r = r0; r < r0 + 4; r++) for (let c = c0; c < c0 + 15 && c < W; c++) values[r * W + c] = 0.8;
}
const spacing = { range: 10, azimuth: 10 };
for (let k = 0; k < repeats; k++) {
  const t0 = process.cpuUsage();
  const f = seaLandFeatures(values, valid, W, H, spacing);
  const d = process.cpuUsage(t0);
  const hash = createHash('sha256').update(new Uint8Array(f.planes.buffer, f.planes.byteOffset, f.planes.byteLength)).digest('hex');
  console.log(`${W}² px, ${f.rows}×${f.cols} cells: features ${((d.user + d.system) / 1e6).toFixed(3)} CPU s | planes ${hash.slice(0, 16)}`);
}
