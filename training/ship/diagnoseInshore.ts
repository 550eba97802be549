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
import { SSDD_PIXEL_M, detectOnChip, readSsddLand } from '../../eval/shipChips.ts';
import { CfarScratch, cfarDetect, cfarWindows } from '../../src/analysis/ship/cfar.ts';
import { resolveShipParams, type ShipParamsInput } from '../../src/analysis/ship/params.ts';
import { markAboveSeaLevel, seaLevel } from '../../src/analysis/ship/seaLevel.ts';
import { measureCluster, type Cluster } from '../../src/analysis/ship/cluster.ts';
import { SPACING } from './seaLandData.ts';
import { devChips, matchChip, pixelOwners, printClasses, replayClusters, shipPixels, withoutShips, type Classed } from './missDiagnosis.ts';
import { arg } from './args.ts';

const kind = process.argv.includes('--offshore') ? 'offshore' : 'inshore';
const extra = JSON.parse(arg('params', '{}')) as ShipParamsInput;
const candidatePfa = Number(arg('pfa', '1e-4'));
const seaLevelFactor = Number(arg('factor', '16'));
const cache = process.argv.includes('--cache') ? arg('cache', '') : undefined;

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

let chipsN = 0;
let shipsN = 0;
let matched = 0;
const detail: Classed[] = [];

for (const d of devChips(kind, cache)) {
  const { chip, width: w, height: h, sigma0, land } = d;
  const n = w * h;
  const dets = detectOnChip(sigma0, w, h, SSDD_PIXEL_M, { land, params });
  const s = matchChip(chip, dets);
  chipsN++;
  shipsN += chip.ships.length;
  matched += s.truePositives;
  if (s.missed.length === 0) continue;

  // The reference sea, the target pixels.
  const refLand = chip.inshore ? readSsddLand(chip) : new Uint8Array(n);
  const target = new Uint8Array(n);
  for (let i = 0; i < n; i++) target[i] = land[i] ? 0 : 1;
  // What the tile's candidate stage marks: CFAR at the candidate PFA and the sea level.
  const cfar = cfarDetect({ values: sigma0, target, width: w, height: h }, cfarOptions, scratch[0]);
  const levelMask = new Uint8Array(n);
  const level = seaLevel(sigma0, target, w, h, Math.max(16, Math.max(windows.background.rows, windows.background.cols)));
  const seeds = markAboveSeaLevel(sigma0, target, w, h, level, seaLevelFactor, seaLevelFactor / 2, levelMask);
  // Sea-only backgrounds: the reference sea (other ships kept), and the reference sea less every ship's outline grown by 2 px.
  const seaBg = new Uint8Array(n);
  for (let i = 0; i < n; i++) seaBg[i] = target[i] && !refLand[i] ? 1 : 0;
  const seaNoShips = withoutShips(seaBg, d.shipId, w, h);
  const cfarSea = cfarDetect({ values: sigma0, target, background: seaBg, width: w, height: h }, cfarOptions, scratch[1]);
  const cfarClean = cfarDetect({ values: sigma0, target, background: seaNoShips, width: w, height: h }, cfarOptions, scratch[2]);
  // Replay the tile's clustering to see what became of a detected pixel.
  const clusterOf = new Map<number, { dropped: boolean; tooBig: boolean }>();
  const mark = (cl: Cluster[], dropped: (c: Cluster) => boolean) => {
    for (const c of cl) {
      const shape = measureCluster(c, w, SPACING);
      const info = { dropped: dropped(c), tooBig: shape.diagonalM > params.maxDiagonalM || shape.lengthM > params.maxLengthM };
      for (const p of c.pixels) if (!clusterOf.has(p)) clusterOf.set(p, info);
    }
  };
  const replayed = replayClusters(cfar.mask, cfar.detected, sigma0, w, h, params.mergeGapM);
  mark(replayed.clusters, () => false);
  if (seeds.length) mark(replayClusters(levelMask, seeds, sigma0, w, h, params.mergeGapM).clusters, (c) => replayed.mask[c.peakIndex] !== 0);
  const owner = pixelOwners(dets, w);

  for (const id of s.missed) {
    const t = chip.ships[id!]!;
    const { pixels: pix, peak } = shipPixels(d, id!, target);
    const centre = Math.min(h - 1, Math.round(t.row)) * w + Math.min(w - 1, Math.round(t.col));
    const pr = peak >= 0 ? (peak / w) | 0 : 0;
    const pc = peak >= 0 ? peak - pr * w : 0;
    const cleanMean = peak >= 0 ? cfarClean.backgroundMean(pr, pc) : Number.NaN;
    const peakOverSeaDb = peak >= 0 && cleanMean > 0 ? 10 * Math.log10(sigma0[peak]! / cleanMean) : Number.NaN;
    let cls: string;
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
    detail.push({ chip: chip.number, ship: id!, cls, sizePx: t.sizePx, peakOverSeaDb });
  }
}
printClasses(`${kind} development chips: ${chipsN}, ships ${shipsN}, matched by a candidate ${matched} (${(matched / shipsN).toFixed(3)})`, detail, shipsN, t0);
