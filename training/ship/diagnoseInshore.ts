/**
 * Why do inshore ships never become candidates? (issue 23 §1.) On the SSDD DEVELOPMENT chips
 * only (validation runs never read), with the candidates exactly as fitClassifier.ts makes them
 * (the out-of-fold segmenter's land cells as land mask, CFAR at the candidate PFA plus the
 * sea-level source, no threshold), every inshore ship that no candidate matches is put in one
 * class, in this order:
 *
 * - land:     its box centre lies on the mask's land (masked away);
 * - merged:   some pixel of its outline is detected (CFAR or sea level) but the candidate holding
 *             it is matched to another ship or lies > 100 m away (one component with piers,
 *             land or other moored ships), or its component was rejected (diagonal or length
 *             > 600 m, a sidelobe arm) — split by which;
 * - undecided: no detected pixel, and its peak's ring holds < minBackgroundFraction of valid
 *             sea (no decision at all);
 * - background: no detected pixel, but it would be detected at the same PFA were the ring's
 *             background the chip's hand-drawn SEA only (the SL-SSDD mask) — split into "land or
 *             clutter in the ring" (sea-only background, other ships kept) and "other ships in the
 *             ring" (detected only when the other ships' outlines are left out too);
 * - dim:      not detected even against the sea-only, ship-free background.
 *
 * The candidates are the detector's (with `classifier.splitLarge`, the default, split parts);
 * the replay of the clustering used to class a miss is the unsplit one, so with splitting a
 * "rejected" class means that no part holds the ship's detected pixels. docs/ship.md has the
 * table before and after the split.
 *
 *   node --import tsx training/ship/diagnoseInshore.ts [--offshore] [--cache FILE] [--pfa 1e-4] [--factor 16] [--params JSON]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_DISTANCE_M, SSDD_DIR, SSDD_PIXEL_M, decodeLuma, detectOnChip, greyAmplitudeToSigma0, loadSsddChips, readSsddLand, type SsddChip } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import { CfarScratch, cfarDetect, cfarWindows } from '../../src/analysis/ship/cfar.ts';
import { resolveShipParams, type ShipParamsInput } from '../../src/analysis/ship/params.ts';
import { landMaskOfField, seaLandModel, seaLandProbability, withLandDistance } from '../../src/analysis/ship/seaLand.ts';
import { markAboveSeaLevel, seaLevel } from '../../src/analysis/ship/seaLevel.ts';
import { clusterDetections, measureCluster, mergeNearbyClusters, type Cluster } from '../../src/analysis/ship/cluster.ts';
import { fillRingSpans } from '../../src/raster/canvas.ts';
import { SPACING, chipCells, foldsByRun, runOf, ssddOutlines } from './seaLandData.ts';
import { outOfFoldLandModels } from './oofLand.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const kind = process.argv.includes('--offshore') ? 'offshore' : 'inshore';
const extra = JSON.parse(arg('params', '{}')) as ShipParamsInput;
const candidatePfa = Number(arg('pfa', '1e-4'));
const seaLevelFactor = Number(arg('factor', '16'));
const cache = process.argv.includes('--cache') ? arg('cache', '') : undefined;

const outlinesOf = ssddOutlines();

const all = loadSsddChips().filter((c) => c.split === 'dev');
const foldOf = foldsByRun(all);
const landModels = outOfFoldLandModels(all, cache);
const landThreshold = seaLandModel().threshold;
const chips = all.filter((c) => c.inshore === (kind === 'inshore'));
const params = resolveShipParams({ ...extra, classifier: { enabled: true, candidatePfa, seaLevelFactor, threshold: 0, ...extra.classifier } });
const windows = cfarWindows(params, SPACING);
const cfarOptions = {
  model: params.model,
  pfa: candidatePfa,
  extentPfa: Math.max(params.extentPfa, candidatePfa),
  looks: params.looks,
  windows,
  minBackgroundFraction: params.minBackgroundFraction,
  censorDilationPx: params.censorDilationPx,
};
const scratch = [new CfarScratch(), new CfarScratch(), new CfarScratch()];
const t0 = process.cpuUsage();

type Class =
  | 'land'
  | 'merged: candidate matched elsewhere or > 100 m'
  | 'merged: component rejected (> 600 m)'
  | 'merged: sea-level component dropped (its peak on CFAR extent)'
  | 'merged: component rejected (sidelobe arm or other)'
  | 'undecided (ring < ¼ sea)' | 'background: land/clutter in ring' | 'background: other ships in ring' | 'dim';
const counts = new Map<Class, number>();
let shipsN = 0;
let matched = 0;
const detail: Array<{ chip: number; ship: number; cls: Class; sizePx: number; peakOverSeaDb: number }> = [];

for (const chip of chips) {
  const { width: w, height: h } = chip;
  const n = w * h;
  const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
  const sigma0 = greyAmplitudeToSigma0(img.grey);
  const field = withLandDistance(seaLandProbability(chipCells(chip).features, { model: landModels[foldOf.get(runOf(chip))!]! }), SPACING, landThreshold);
  const land = landMaskOfField(field, w, h, landThreshold);
  const dets = detectOnChip(sigma0, w, h, SSDD_PIXEL_M, { land, params });
  const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
  const dist = (d: number, t: (typeof truth)[number]) => Math.hypot(dets[d]!.centroidRow - t.row, dets[d]!.centroidCol - t.col);
  const s = scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, dist);
  shipsN += chip.ships.length;
  matched += s.truePositives;
  if (s.missed.length === 0) continue;

  // Ship outlines (one label per ship), the reference sea, the target pixels.
  const shipId = new Int32Array(n).fill(-1);
  const polys = outlinesOf(chip.file);
  polys.forEach((rings, k) => fillRingSpans(rings, w, h, (y, xa, xb) => shipId.fill(k, y * w + xa, y * w + xb)));
  const refLand = chip.inshore ? readSsddLand(chip) : new Uint8Array(n);
  const target = new Uint8Array(n);
  for (let i = 0; i < n; i++) target[i] = land[i] ? 0 : 1;
  // What the tile's candidate stage marks: CFAR at the candidate PFA and the sea level.
  const cfar = cfarDetect({ values: sigma0, target, width: w, height: h }, cfarOptions, scratch[0]);
  const levelMask = new Uint8Array(n);
  const level = seaLevel(sigma0, target, w, h, Math.max(16, Math.max(windows.background.rows, windows.background.cols)));
  markAboveSeaLevel(sigma0, target, w, h, level, seaLevelFactor, seaLevelFactor / 2, levelMask);
  // Sea-only backgrounds: the reference sea (other ships kept), and the reference sea less every ship's outline grown by 2 px.
  const seaBg = new Uint8Array(n);
  const seaNoShips = new Uint8Array(n);
  for (let i = 0; i < n; i++) seaBg[i] = target[i] && !refLand[i] ? 1 : 0;
  seaNoShips.set(seaBg);
  for (let i = 0; i < n; i++)
    if (shipId[i]! >= 0) {
      const r = (i / w) | 0, c = i - r * w;
      for (let dr = -2; dr <= 2; dr++) for (let dc = -2; dc <= 2; dc++) {
        const rr = r + dr, cc = c + dc;
        if (rr >= 0 && rr < h && cc >= 0 && cc < w) seaNoShips[rr * w + cc] = 0;
      }
    }
  const cfarSea = cfarDetect({ values: sigma0, target, background: seaBg, width: w, height: h }, cfarOptions, scratch[1]);
  const cfarClean = cfarDetect({ values: sigma0, target, background: seaNoShips, width: w, height: h }, cfarOptions, scratch[2]);
  // Replay the tile's clustering to see what became of a detected pixel.
  const clusterOf = new Map<number, { dropped: boolean; tooBig: boolean }>();
  {
    const m1 = Uint8Array.from(cfar.mask);
    const mark = (cl: Cluster[], dropped: (c: Cluster) => boolean) => {
      for (const c of cl) {
        const shape = measureCluster(c, w, SPACING);
        const info = { dropped: dropped(c), tooBig: shape.diagonalM > params.maxDiagonalM || shape.lengthM > params.maxLengthM };
        for (const p of c.pixels) if (!clusterOf.has(p)) clusterOf.set(p, info);
      }
    };
    mark(mergeNearbyClusters(clusterDetections(m1, sigma0, w, h, cfar.detected), m1, sigma0, w, h, SPACING, params.mergeGapM), () => false);
    const lm = new Uint8Array(n);
    const seeds = markAboveSeaLevel(sigma0, target, w, h, level, seaLevelFactor, seaLevelFactor / 2, lm);
    if (seeds.length) mark(mergeNearbyClusters(clusterDetections(lm, sigma0, w, h, seeds), lm, sigma0, w, h, SPACING, params.mergeGapM), (c) => m1[c.peakIndex] !== 0);
  }
  const owner = new Map<number, number>();
  dets.forEach((d, k) => d.pixels.rows.forEach((r, j) => owner.set(r * w + d.pixels.cols[j]!, k)));

  for (const id of s.missed) {
    const t = chip.ships[id!]!;
    const pix: number[] = [];
    for (let i = 0; i < n; i++) if (shipId[i] === id) pix.push(i);
    const centre = Math.min(h - 1, Math.round(t.row)) * w + Math.min(w - 1, Math.round(t.col));
    let peak = -1;
    for (const p of pix) if (target[p] && (peak < 0 || sigma0[p]! > sigma0[peak]!)) peak = p;
    const pr = peak >= 0 ? (peak / w) | 0 : 0;
    const pc = peak >= 0 ? peak - pr * w : 0;
    const cleanMean = peak >= 0 ? cfarClean.backgroundMean(pr, pc) : Number.NaN;
    const peakOverSeaDb = peak >= 0 && cleanMean > 0 ? 10 * Math.log10(sigma0[peak]! / cleanMean) : Number.NaN;
    let cls: Class;
    const hit = pix.find((p) => cfar.mask[p] === 2 || levelMask[p] === 2);
    if (land[centre]) cls = 'land';
    else if (hit !== undefined) {
      const holder = pix.map((p) => owner.get(p)).find((k) => k !== undefined);
      if (holder !== undefined) cls = 'merged: candidate matched elsewhere or > 100 m';
      else {
        // The tile's clusters (CFAR, then sea level), merged within the merge gap as the tile does.
        const c = clusterOf.get(hit);
        if (c === undefined) cls = 'merged: component rejected (sidelobe arm or other)';
        else if (c.dropped) cls = 'merged: sea-level component dropped (its peak on CFAR extent)';
        else if (c.tooBig) cls = 'merged: component rejected (> 600 m)';
        else cls = 'merged: component rejected (sidelobe arm or other)';
      }
    } else if (peak < 0 || Number.isNaN(cfar.backgroundMean(pr, pc))) cls = 'undecided (ring < ¼ sea)';
    else if (pix.some((p) => cfarSea.mask[p] === 2)) cls = 'background: land/clutter in ring';
    else if (pix.some((p) => cfarClean.mask[p] === 2)) cls = 'background: other ships in ring';
    else cls = 'dim';
    counts.set(cls, (counts.get(cls) ?? 0) + 1);
    detail.push({ chip: chip.number, ship: id!, cls, sizePx: t.sizePx, peakOverSeaDb });
  }
}
const u = process.cpuUsage(t0);
console.log(`${kind} development chips: ${chips.length}, ships ${shipsN}, matched by a candidate ${matched} (${(matched / shipsN).toFixed(3)}); ${((u.user + u.system) / 1e6).toFixed(0)} CPU s`);
for (const [c, k] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${c}: ${k} (${(k / shipsN).toFixed(3)})`);
const byClass = new Map<string, number[]>();
for (const d of detail) byClass.set(d.cls, [...(byClass.get(d.cls) ?? []), d.sizePx]);
for (const [c, sz] of byClass) {
  sz.sort((a, b) => a - b);
  const db = detail.filter((d) => d.cls === c).map((d) => d.peakOverSeaDb).filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  console.log(`  ${c}: median box ${sz[sz.length >> 1]} px, median peak over clean sea ${db.length ? db[db.length >> 1]!.toFixed(1) : 'n/a'} dB`);
}
if (process.argv.includes('--list')) for (const d of detail) console.log(JSON.stringify(d));
