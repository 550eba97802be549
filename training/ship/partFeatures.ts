/**
 * Issue 23 §1 experiment (inshoreRows.ts → inshoreExperiment.ts --only part): twelve features of a
 * candidate's own pixels and of the pixels just around it, at pixel scale. The first three are
 * the committed part texture (src/analysis/ship/classifier.ts partTextureFeatures); the other
 * nine (edge, sectors, rings) were tried out of fold and not adopted (docs/ship.md). Imports the
 * src classifier only.
 */
import { partTextureFeatures } from '../../src/analysis/ship/classifier.ts';
/** partFeatures' names, in order: the committed three (classifier.ts partTextureFeatures), then nine around the part, tried and not adopted. */
export const PART_FEATURES = [
  'partCv',
  'partCoreShare',
  'partTopOverMedianDb',
  'edgeContrastDb',
  'edgeDarkShare',
  'sectorMinDb',
  'sectorMaxDb',
  'darkSectors',
  'ring1Dark',
  'ring1Bright',
  'ring2Dark',
  'ring2Bright',
] as const;

/** Rings (chessboard distance from the part, m) of partFeatures: near (0, RING1_M], far (RING1_M, RING2_M]. */
const RING1_M = 18;
const RING2_M = 60;
let partScratch = new Int16Array(0);

/**
 * Texture of a candidate's own pixels and of the pixels just around it, at pixel scale (finer
 * than the sea/land segmenter's cells): is it a hull — a bright core, a sharp edge against dark
 * water on most sides — or a piece of bright land or quay, bright around? `pixels`: its
 * tile-local linear indices; `meanValue` its mean σ0. Per part: the coefficient of variation of
 * its σ0, the share of its pixels at least half its peak, the mean of its brightest tenth over
 * its median (dB); along its edge (part pixel against a 4-neighbour outside it) the mean ratio
 * (dB) and the share of outside neighbours darker than a tenth of `meanValue`. Around it, the
 * pixels within RING1_M (chessboard distance at the finer pixel spacing) in eight sectors by bearing from its centroid: the darkest
 * and brightest sector's mean dB over `meanValue`, the share of sectors darker than −10 dB; for
 * the near ring and the far ring (RING1_M, RING2_M], the share of pixels darker than a tenth of
 * `meanValue` and of pixels at least half of it. Pixels outside the tile are skipped; empty: NaN.
 */
export function partFeatures(values: Float32Array, width: number, height: number, spacing: { range: number; azimuth: number }, pixels: ArrayLike<number>, meanValue: number): number[] {
  const n = pixels.length;
  const step = Math.min(spacing.range, spacing.azimuth);
  const RING1 = Math.max(1, Math.round(RING1_M / step));
  const RING2 = Math.max(RING1 + 1, Math.round(RING2_M / step));
  let rMin = height;
  let rMax = -1;
  let cMin = width;
  let cMax = -1;
  let sr = 0;
  let sc = 0;
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const r = (p / width) | 0;
    const c = p - r * width;
    if (r < rMin) rMin = r;
    if (r > rMax) rMax = r;
    if (c < cMin) cMin = c;
    if (c > cMax) cMax = c;
    sr += r;
    sc += c;
  }
  const cr = sr / n;
  const cc = sc / n;
  const texture = partTextureFeatures(values, pixels, meanValue);
  const ldb = (x: number) => 10 * Math.log10(Math.max(x, 1e-12));
  // Local window: the part's box grown by RING2, clipped to the tile; chessboard distance to the part.
  const r0 = Math.max(0, rMin - RING2);
  const r1 = Math.min(height - 1, rMax + RING2);
  const c0 = Math.max(0, cMin - RING2);
  const c1 = Math.min(width - 1, cMax + RING2);
  const ww = c1 - c0 + 1;
  const wh = r1 - r0 + 1;
  if (partScratch.length < ww * wh) partScratch = new Int16Array(Math.max(ww * wh, 2 * partScratch.length));
  const dist = partScratch;
  const FAR = 32000;
  dist.fill(FAR, 0, ww * wh);
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const r = (p / width) | 0;
    dist[(r - r0) * ww + (p - r * width - c0)] = 0;
  }
  for (let r = 0; r < wh; r++)
    for (let c = 0; c < ww; c++) {
      const i = r * ww + c;
      let d = dist[i]!;
      if (d === 0) continue;
      if (c > 0) d = Math.min(d, dist[i - 1]! + 1);
      if (r > 0) {
        d = Math.min(d, dist[i - ww]! + 1);
        if (c > 0) d = Math.min(d, dist[i - ww - 1]! + 1);
        if (c < ww - 1) d = Math.min(d, dist[i - ww + 1]! + 1);
      }
      dist[i] = d;
    }
  for (let r = wh - 1; r >= 0; r--)
    for (let c = ww - 1; c >= 0; c--) {
      const i = r * ww + c;
      let d = dist[i]!;
      if (d === 0) continue;
      if (c < ww - 1) d = Math.min(d, dist[i + 1]! + 1);
      if (r < wh - 1) {
        d = Math.min(d, dist[i + ww]! + 1);
        if (c < ww - 1) d = Math.min(d, dist[i + ww + 1]! + 1);
        if (c > 0) d = Math.min(d, dist[i + ww - 1]! + 1);
      }
      dist[i] = d;
    }
  const dark = 0.1 * meanValue;
  const bright = 0.5 * meanValue;
  let edgeN = 0;
  let edgeSum = 0;
  let edgeDark = 0;
  const secSum = new Float64Array(8);
  const secN = new Float64Array(8);
  const ring = [
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (let r = 0; r < wh; r++)
    for (let c = 0; c < ww; c++) {
      const d = dist[r * ww + c]!;
      const v = values[(r + r0) * width + c + c0]!;
      if (d === 0) {
        // Edge pairs: this part pixel against each 4-neighbour outside the part (inside the window).
        for (const [dr, dc] of EDGE_STEPS) {
          const rr = r + dr;
          const cc2 = c + dc;
          if (rr < 0 || cc2 < 0 || rr >= wh || cc2 >= ww || dist[rr * ww + cc2] === 0) continue;
          const u = values[(rr + r0) * width + cc2 + c0]!;
          edgeN++;
          edgeSum += ldb(v) - ldb(u);
          if (u < dark) edgeDark++;
        }
        continue;
      }
      if (d > RING2) continue;
      const g = d <= RING1 ? ring[0]! : ring[1]!;
      g[0]!++;
      if (v < dark) g[1]!++;
      if (v >= bright) g[2]!++;
      if (d <= RING1) {
        const a = Math.atan2(r + r0 - cr, c + c0 - cc);
        const s = Math.min(7, Math.floor(((a + Math.PI) / (2 * Math.PI)) * 8));
        secSum[s]! += ldb(v);
        secN[s]!++;
      }
    }
  let secMin = Number.NaN;
  let secMax = Number.NaN;
  let secDark = 0;
  let secs = 0;
  for (let s = 0; s < 8; s++) {
    if (!secN[s]) continue;
    const m = secSum[s]! / secN[s]! - ldb(meanValue);
    secs++;
    if (m < -10) secDark++;
    if (!(m >= secMin)) secMin = m;
    if (!(m <= secMax)) secMax = m;
  }
  const share = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
  return [
    ...texture,
    edgeN ? edgeSum / edgeN : Number.NaN,
    share(edgeDark, edgeN),
    secMin,
    secMax,
    share(secDark, secs),
    share(ring[0]![1]!, ring[0]![0]!),
    share(ring[0]![2]!, ring[0]![0]!),
    share(ring[1]![1]!, ring[1]![0]!),
    share(ring[1]![2]!, ring[1]![0]!),
  ];
}
const EDGE_STEPS = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
] as const;
