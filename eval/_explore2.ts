import { loadOpenSarShips, readOpenSarChip, sceneBearingConstants, nearestDetection, axisError } from './shipChips.ts';
import { detectShipsInTile } from '../src/analysis/ship/index.ts';
import { vesselShape } from '../src/analysis/ship/attributes.ts';
import { writeFileSync } from 'node:fs';
const ships = loadOpenSarShips();
const C = sceneBearingConstants(ships);
function pad(a: Float32Array, w: number, h: number, P: number, seed: number) {
  const border: number[] = [];
  for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) if (r < 2 || c < 2 || r >= h - 2 || c >= w - 2) border.push(a[r * w + c]!);
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const W = w + 2 * P, H = h + 2 * P;
  const out = new Float32Array(W * H);
  for (let i = 0; i < out.length; i++) out[i] = border[Math.floor(rnd() * border.length)]!;
  for (let r = 0; r < h; r++) out.set(a.subarray(r * w, r * w + w), (r + P) * W + P);
  const sorted = border.slice().sort((x, y) => x - y);
  return { out, bg: border.reduce((x, y) => x + y, 0) / border.length };
}
const rows: any[] = [];
for (const [i, s] of ships.entries()) {
  const chip = await readOpenSarChip(s.file);
  const P = 100;
  const W = chip.width + 2 * P, H = chip.height + 2 * P;
  const vh = pad(chip.vh, chip.width, chip.height, P, i + 1), vv = pad(chip.vv, chip.width, chip.height, P, i + 7);
  const dets = detectShipsInTile({ sigma0: { vh: vh.out.slice(), vv: vv.out.slice() }, valid: new Uint8Array(W * H).fill(1), width: W, height: H, pixelSpacing: s.spacing, core: { x0: 0, y0: 0, width: W, height: H } }, {});
  const d = nearestDetection(dets.map((d) => ({ ...d, centroidRow: d.centroidRow - P, centroidCol: d.centroidCol - P })), s);
  const row: any = { scene: s.scene.slice(17, 25), L: s.aisLength, Wd: s.aisWidth, H: s.aisHeading, C: C.get(s.scene), det: !!d };
  if (d) {
    const idx = Array.from(d.pixels.rows, (r, k) => r * W + d.pixels.cols[k]!);
    row.l0 = d.lengthM; row.w0 = d.widthM; row.o0 = d.orientationDeg;
    for (const [ch, im] of [['vh', vh], ['vv', vv]] as const) for (const t of [3, 6, 10, 13, 16]) {
      const sh = vesselShape(idx, im.out, W, s.spacing, im.bg, t);
      row[`${ch}${t}`] = [sh.rawLengthM, sh.rawWidthM, sh.axisDeg, sh.elongation];
    }
  }
  rows.push(row);
}
writeFileSync('/tmp/ships-feat.json', JSON.stringify(rows));
