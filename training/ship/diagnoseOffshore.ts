/**
 * Why does the default detector miss offshore ships? (issue 23 §1.) On the SSDD DEVELOPMENT
 * offshore chips only (validation runs never read), the detections are what a ship job's
 * default path gives on a chip as the eval runs it (eval/shipChips.ts, row "scene sea/land
 * segmentation + near-shore classifier": detectShipsInTile with `nearShore` on and the
 * segmenter's land as the land mask — here the out-of-fold segmenter's, whose model never saw
 * the chip's run; `--land committed` takes the committed one, as the eval does). Every ship no
 * detection matches is put in one class, in this order:
 *
 * - land:       its box centre lies on the mask's land;
 * - near shore: its brightest pixel lies in the near-shore band (within 2 km of the mask's land),
 *               where the candidate classifier, not the default detector, judges;
 * - detected:   a pixel of its outline passes the default CFAR (PFA params.pfa) and
 *   - merged:     the detection holding it is matched to another ship,
 *   - off:        the detection holding it lies > 100 m from the box centre (unmatched),
 *   - too small / too large / aspect: its cluster (the tile's clustering replayed) fails the
 *                 size filters — with the cluster's measured size at the assumed 3 m,
 *   - sidelobe:   its cluster passes them but was taken for a sidelobe arm;
 * - undecided:  nothing detected, and its peak's ring holds < minBackgroundFraction valid sea;
 * - background: nothing detected, but detected against a ring without the first pass's whole
 *               clusters (detected and extent pixels, grown as the censoring grows detections),
 *               or without every pixel it put above the extent threshold, or else against a ring
 *               without the other ships (every outline grown by 2 px left out);
 * - dim:        not even then — split by the PFA at which a pixel of its outline would pass
 *               (against the ring as the detector has it: 1e-6, 1e-4, or neither).
 *
 * The detections no ship matches are classed too: in the near-shore band (the classifier's), on
 * a ship's outline (a second piece of a ship, or a ship matched to a nearer detection), within
 * 300 m of a ship's box centre (sidelobes, ambiguities, wakes), at the chip's edge (peak ≤ 5 px
 * from it), or open sea.
 *
 *   node --import tsx training/ship/diagnoseOffshore.ts [--cache FILE] [--land oof|committed] [--params JSON] [--list]
 */
import { SSDD_PIXEL_M, detectOnChip, sceneLandMaskOfChip } from '../../eval/shipChips.ts';
import { CfarScratch, cfarDetect, cfarWindows, type CfarResult } from '../../src/analysis/ship/cfar.ts';
import { measureCluster, type Cluster } from '../../src/analysis/ship/cluster.ts';
import { inNearShoreBand, nearShoreBand } from '../../src/analysis/ship/nearShore.ts';
import { resolveShipParams, type ShipParamsInput } from '../../src/analysis/ship/params.ts';
import { censorObjectPx } from '../../src/analysis/ship/tile.ts';
import { SPACING } from './seaLandData.ts';
import { devChips, matchChip, pixelOwners, printClasses, replayClusters, shipPixels, without, withoutShips, type Classed } from './missDiagnosis.ts';
import { arg } from './args.ts';

const extra = JSON.parse(arg('params', '{}')) as ShipParamsInput;
const landSource = arg('land', 'oof');
const cache = process.argv.includes('--cache') ? arg('cache', '') : undefined;

const params = resolveShipParams({ ...extra, nearShore: { enabled: true, ...extra.nearShore } });
const windows = cfarWindows(params, SPACING);
const cfarAt = (pfa: number) => ({
  model: params.model,
  pfa,
  extentPfa: Math.max(params.extentPfa, pfa),
  looks: params.looks,
  windows,
  minBackgroundFraction: params.minBackgroundFraction,
  censorDilationPx: params.censorDilationPx,
  censorObjectPx: censorObjectPx(params, SPACING),
});
const scratch = new CfarScratch();
const t0 = process.cpuUsage();

let chipsN = 0;
let shipsN = 0;
let detectionsN = 0;
let matched = 0;
const misses: Classed[] = [];
const falses: Classed[] = [];
/** The measured size (m) of the clusters the size filters dropped, by class. */
const dropped = new Map<string, Array<{ diagonalM: number; lengthM: number; widthM: number; boxM: number }>>();

const m = (v: number) => Math.round(v);

for (const d of devChips('offshore', cache)) {
  const { chip, width: w, height: h, sigma0 } = d;
  const n = w * h;
  const land = landSource === 'committed' ? sceneLandMaskOfChip(sigma0, w, h) : d.land;
  const dets = detectOnChip(sigma0, w, h, SSDD_PIXEL_M, { land, params });
  const s = matchChip(chip, dets);
  chipsN++;
  shipsN += chip.ships.length;
  detectionsN += dets.length;
  matched += s.truePositives;
  if (s.missed.length === 0 && s.falseAlarms.length === 0) continue;

  const target = new Uint8Array(n);
  for (let i = 0; i < n; i++) target[i] = land[i] ? 0 : 1;
  const core = { x0: 0, y0: 0, width: w, height: h };
  const band = nearShoreBand(land, new Uint8Array(n).fill(1), w, h, SPACING, params.nearShore.distanceM, core);
  const inBand = (p: number) => !!band?.reachesCore && inNearShoreBand(band, (p / w) | 0, p % w);
  const owner = pixelOwners(dets, w);
  const falseSet = new Set(s.falseAlarms);

  // The default CFAR as the tile runs it, its clusters replayed; lazily the ship-free ring and lower PFAs.
  const cfar = cfarDetect({ values: sigma0, target, width: w, height: h }, cfarAt(params.pfa), scratch);
  const mask = Uint8Array.from(cfar.mask);
  const bgMean = (p: number) => cfar.backgroundMean((p / w) | 0, p % w);
  const peakMean = new Map<number, number>();
  for (const id of s.missed) {
    const { peak } = shipPixels(d, id!, target);
    if (peak >= 0) peakMean.set(id!, bgMean(peak));
  }
  const clusterOf = new Map<number, Cluster>();
  for (const c of replayClusters(mask, cfar.detected, sigma0, w, h, params.mergeGapM).clusters) for (const p of c.pixels) clusterOf.set(p, c);
  const passes = new Map<string, Uint8Array>();
  const passing = (key: string, run: () => CfarResult) => {
    if (!passes.has(key)) passes.set(key, Uint8Array.from(run().mask));
    return passes.get(key)!;
  };
  const clean = () => passing('clean', () => cfarDetect({ values: sigma0, target, background: withoutShips(target, d.shipId, w, h), width: w, height: h }, cfarAt(params.pfa), scratch));
  // The ring without the first pass's whole clusters (detected and extent pixels, merged), grown as the censoring grows detections.
  const clusterFree = () => passing('clusters', () => cfarDetect({ values: sigma0, target, background: without(target, (i) => clusterOf.has(i), w, h, params.censorDilationPx), width: w, height: h }, cfarAt(params.pfa), scratch));
  // The ring without every pixel the first pass put above the extent threshold (in a cluster or not), grown alike.
  const extentFree = () => passing('extent', () => cfarDetect({ values: sigma0, target, background: without(target, (i) => mask[i]! >= 1, w, h, params.censorDilationPx), width: w, height: h }, cfarAt(params.pfa), scratch));
  const atPfa = (pfa: number) => passing(`pfa ${pfa}`, () => cfarDetect({ values: sigma0, target, width: w, height: h }, cfarAt(pfa), scratch));

  for (const id of s.missed) {
    const t = chip.ships[id!]!;
    const { pixels: pix, peak } = shipPixels(d, id!, target);
    const centre = Math.min(h - 1, Math.round(t.row)) * w + Math.min(w - 1, Math.round(t.col));
    const ringMean = peakMean.get(id!) ?? Number.NaN;
    const peakOverSeaDb = peak >= 0 && ringMean > 0 ? 10 * Math.log10(sigma0[peak]! / ringMean) : Number.NaN;
    let cls: string;
    // The brightest outline pixel the default CFAR detects.
    let hit = -1;
    for (const p of pix) if (mask[p] === 2 && (hit < 0 || sigma0[p]! > sigma0[hit]!)) hit = p;
    if (land[centre]) cls = 'land: box centre on the mask';
    else if (inBand(peak >= 0 ? peak : centre)) cls = 'near shore: in the band (the classifier judges)';
    else if (hit >= 0) {
      const holder = pix.map((p) => owner.get(p)).find((k) => k !== undefined);
      if (holder !== undefined) cls = falseSet.has(holder) ? 'detected: centroid > 100 m off' : 'detected: merged with a neighbour (matched to it)';
      else {
        const c = clusterOf.get(hit)!;
        const shape = measureCluster(c, w, SPACING);
        const aspect = shape.lengthM / Math.max(shape.widthM, SSDD_PIXEL_M);
        if (shape.diagonalM < params.minDiagonalM) cls = `detected: too small (diagonal < ${params.minDiagonalM} m)`;
        else if (shape.diagonalM > params.maxDiagonalM || shape.lengthM > params.maxLengthM) cls = `detected: too large (> ${params.maxDiagonalM} m)`;
        else if (shape.lengthM < params.minLengthM) cls = `detected: too short (< ${params.minLengthM} m)`;
        else if (aspect > params.maxAspectRatio) cls = `detected: aspect > ${params.maxAspectRatio}`;
        else cls = 'detected: taken for a sidelobe arm';
        if (!cls.endsWith('arm')) dropped.set(cls, [...(dropped.get(cls) ?? []), { diagonalM: shape.diagonalM, lengthM: shape.lengthM, widthM: shape.widthM, boxM: t.sizePx * SSDD_PIXEL_M }]);
      }
    } else if (peak < 0 || Number.isNaN(ringMean)) cls = `undecided: ring < ${params.minBackgroundFraction} valid`;
    else if (pix.some((p) => clusterFree()[p] === 2)) cls = 'background: other ships\' clusters (first pass) in the ring';
    else if (pix.some((p) => extentFree()[p] === 2)) cls = 'background: other ships\' extent pixels (first pass) in the ring';
    else if (pix.some((p) => clean()[p] === 2)) cls = 'background: other ships in the ring';
    else if (pix.some((p) => atPfa(1e-6)[p] === 2)) cls = 'dim: passes at PFA 1e-6';
    else if (pix.some((p) => atPfa(1e-4)[p] === 2)) cls = 'dim: passes at PFA 1e-4';
    else cls = 'dim: not even at PFA 1e-4';
    misses.push({ chip: chip.number, ship: id!, cls, sizePx: t.sizePx, peakOverSeaDb });
  }

  for (const k of s.falseAlarms) {
    const det = dets[k]!;
    const peak = det.peakRow * w + det.peakCol;
    let onShip = false;
    det.pixels.rows.forEach((r, j) => (onShip ||= d.shipId[r * w + det.pixels.cols[j]!]! >= 0));
    const nearShip = chip.ships.some((t) => Math.hypot(t.row - det.centroidRow, t.col - det.centroidCol) * SSDD_PIXEL_M <= 300);
    const edge = Math.min(det.peakRow, det.peakCol, h - 1 - det.peakRow, w - 1 - det.peakCol) <= 5;
    const cls = inBand(peak) ? 'near shore: in the band (the classifier kept it)' : onShip ? 'on a ship\'s outline' : nearShip ? 'within 300 m of a ship' : edge ? 'open sea at the chip edge (≤ 5 px)' : 'open sea';
    falses.push({ chip: chip.number, ship: k, cls, sizePx: Math.round(det.diagonalM / SSDD_PIXEL_M), peakOverSeaDb: det.contrastDb });
  }
}

const fp = detectionsN - matched;
printClasses(
  `offshore development chips (${landSource} land): ${chipsN}, ships ${shipsN}, detections ${detectionsN}, matched ${matched}: recall ${(matched / shipsN).toFixed(3)}, precision ${(matched / detectionsN).toFixed(3)}; missed ${shipsN - matched}`,
  misses,
  shipsN,
  t0,
  'peak over the ring as the detector has it',
);
for (const [c, list] of dropped) {
  const q = (k: keyof (typeof list)[number]) => {
    const v = list.map((x) => x[k]).sort((a, b) => a - b);
    return `${m(v[0]!)}/${m(v[v.length >> 1]!)}/${m(v[v.length - 1]!)}`;
  };
  console.log(`  ${c}, measured (min/median/max m): diagonal ${q('diagonalM')}, length ${q('lengthM')}, width ${q('widthM')}; ship box ${q('boxM')}`);
}
printClasses(`false detections: ${fp} (box: the detection's diagonal in px)`, falses, fp, t0, 'contrast');
