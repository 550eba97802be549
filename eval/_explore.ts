import { loadOpenSarShips, readOpenSarChip, sceneBearingConstants, nearestDetection, axisError } from './shipChips.ts';
import { detectShipsInTile } from '../src/analysis/ship/index.ts';
const ships = loadOpenSarShips();
const C = sceneBearingConstants(ships);
function pad(a: Float32Array, w: number, h: number, P: number, seed: number) {
  // border samples
  const border: number[] = [];
  for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) if (r < 2 || c < 2 || r >= h - 2 || c >= w - 2) border.push(a[r * w + c]!);
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const W = w + 2 * P, H = h + 2 * P;
  const out = new Float32Array(W * H);
  for (let i = 0; i < out.length; i++) out[i] = border[Math.floor(rnd() * border.length)]!;
  for (let r = 0; r < h; r++) out.set(a.subarray(r * w, r * w + w), (r + P) * W + P);
  return out;
}
const rows: any[] = [];
for (const [i, s] of ships.entries()) {
  const chip = await readOpenSarChip(s.file);
  const P = 100;
  const W = chip.width + 2 * P, H = chip.height + 2 * P;
  const vh = pad(chip.vh, chip.width, chip.height, P, i + 1), vv = pad(chip.vv, chip.width, chip.height, P, i + 7);
  const dets = detectShipsInTile({ sigma0: { vh, vv }, valid: new Uint8Array(W * H).fill(1), width: W, height: H, pixelSpacing: s.spacing, core: { x0: 0, y0: 0, width: W, height: H } }, {});
  const d = nearestDetection(dets.map((d) => ({ ...d, centroidRow: d.centroidRow - P, centroidCol: d.centroidCol - P })), s);
  rows.push({ scene: s.scene.slice(17, 25), L: s.aisLength, Wd: s.aisWidth, det: !!d, l: d?.lengthM, w: d?.widthM, ax: d ? axisError(C.get(s.scene)! + d.orientationDeg, s.aisHeading ?? NaN) : NaN, chipax: d ? axisError(-s.chipDirection, d.orientationDeg) : NaN, n: d?.pixels.rows.length, size: chip.width });
}
for (const r of rows) console.log(JSON.stringify(r));
console.log('detected', rows.filter((r) => r.det).length, '/', rows.length);
