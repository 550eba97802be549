/**
 * Oil-slick OUTLINES (issue 24 §1): how much of a slick the reported outline takes.
 *
 * 1. Real chips (CSIRO dev chips, validation split by source image; no pixel masks): outline
 *    completeness. Around each reported slick (its box grown by COMPLETENESS_MARGIN_M) the
 *    chip's level is smoothed (5 × 5 box mean in dB); the sea level is the median of the pixels
 *    outside every outline, the film level the median inside this slick's outline, and the
 *    "dark feature" is every 8-connected part below halfway between them that touches the
 *    outline. Completeness = |outline ∩ feature| / |feature| (pooled over chips), and the share
 *    of the outline inside the feature beside it. Independent of the detector's own thresholds
 *    (the detector's background is a 2 km / 600 m box mean, its outline a 3 × 3 box): it
 *    measures whether the outline takes the whole dark feature the model accepted, not whether
 *    the feature is oil.
 * 2. Generated slicks with pixel truth (in memory, 12 × 12 km at 10 m, 35°): CMOD5.N sea with
 *    smooth wind variability and 4.4-look speckle; each scene one slick of 3.5–7 dB with soft edges
 *    (40–200 m logistic ramps), patchy damping (35–100 %), a body broken by 3–6 gaps across it (broken fronts), one
 *    or two thin arms (40–80 m), holes where the sea shows through and a faint tail; truth = the
 *    pixels damped by at least half the core damping (dB). One low-wind patch per scene (soft
 *    edges over 0.5–1 km) is the look-alike: truth = where its wind drop is ≥ half. Calibrated
 *    defaults (vetoes as in the service). Pooled pixel IoU over all slick pixels, look-alike
 *    pixels flagged over all look-alike pixels. The generator is training/oilslick/outlineScene.ts;
 *    these are its seeds 2400–2405, which the training mix (generated.ts) never uses.
 */
import { readFileSync } from 'node:fs';
import { BoxScratch, boxMean } from '../src/raster/boxMean.ts';
import {
  decodeGreyJpeg,
  detectSlicksInRaster,
  greyRasterInput,
  labelRegions,
  loadOilModel,
  resolveOilSlickParams,
  slickMaskOfRaster,
  type SlickCandidate,
  type SlickRasterInput,
} from '../src/analysis/oilslick/index.ts';
import { chipsAvailable, defaultChipDir, listChips, splitBySource } from '../training/oilslick/dataset.ts';
import { generateOutlineScene, OUTLINE_SCENE_INCIDENCE_DEG } from '../training/oilslick/outlineScene.ts';
import { SPLIT_SEED, VALIDATION_FRACTION } from '../training/oilslick/split.ts';
import { f3, table } from './format.ts';

/** Margin (m) around a reported slick's box in which its dark feature is looked for. */
export const COMPLETENESS_MARGIN_M = 500;

export interface CompletenessSums {
  /** Pixels of the dark features (outline-touching parts below the local halfway level). */
  featurePx: number;
  /** Outline pixels inside those features. */
  coveredPx: number;
  /** Outline pixels (in the windows). */
  outlinePx: number;
}

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  values.sort((a, b) => a - b);
  return values[values.length >> 1]!;
}

/**
 * Completeness of the reported outlines of one image (see the file comment): `outline` is the
 * union mask of the reported slicks, `slicks` their candidates (for the windows).
 */
export function outlineCompleteness(input: SlickRasterInput, outline: Uint8Array, slicks: readonly SlickCandidate[], multilook: number): CompletenessSums {
  const { width: w, height: h } = input;
  const n = w * h;
  const usable = new Uint8Array(n);
  const db = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    usable[i] = input.valid[i] && !(input.land && input.land[i]) ? 1 : 0;
    db[i] = usable[i] ? 10 * Math.log10(Math.max(input.sigma0VV[i]!, 1e-6)) : 0;
  }
  const level = boxMean(db, usable, w, h, 2, 2, new Float32Array(n), { scratch: new BoxScratch() });
  const feature = new Uint8Array(n);
  const counted = new Uint8Array(n);
  const sums: CompletenessSums = { featurePx: 0, coveredPx: 0, outlinePx: 0 };
  for (const c of slicks) {
    if (!c.isSlick) continue;
    const margin = Math.ceil(COMPLETENESS_MARGIN_M / input.pixelSpacing.range);
    const x0 = Math.max(0, c.region.box.x0 * multilook - margin);
    const y0 = Math.max(0, c.region.box.y0 * multilook - margin);
    const x1 = Math.min(w, (c.region.box.x1 + 1) * multilook + margin);
    const y1 = Math.min(h, (c.region.box.y1 + 1) * multilook + margin);
    const ww = x1 - x0;
    const wh = y1 - y0;
    // This slick's own outline pixels: the union outline inside its working-grid box (grown a little).
    const sea: number[] = [];
    const film: number[] = [];
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const i = y * w + x;
        if (!usable[i]) continue;
        if (outline[i]) {
          const gx = (x / multilook) | 0;
          const gy = (y / multilook) | 0;
          if (gx >= c.region.box.x0 - 3 && gx <= c.region.box.x1 + 3 && gy >= c.region.box.y0 - 3 && gy <= c.region.box.y1 + 3) film.push(level[i]!);
        } else sea.push(level[i]!);
      }
    }
    const seaDb = median(sea);
    const filmDb = median(film);
    if (!(seaDb > filmDb)) continue;
    const t = (seaDb + filmDb) / 2;
    const dark = new Uint8Array(ww * wh);
    for (let y = 0; y < wh; y++) for (let x = 0; x < ww; x++) {
      const i = (y0 + y) * w + x0 + x;
      dark[y * ww + x] = usable[i] && level[i]! < t ? 1 : 0;
    }
    const lab = labelRegions(dark, ww, wh);
    const touch = new Uint8Array(lab.count + 1);
    for (let y = 0; y < wh; y++) for (let x = 0; x < ww; x++) {
      const l = lab.labels[y * ww + x]!;
      if (l && outline[(y0 + y) * w + x0 + x]) touch[l] = 1;
    }
    for (let y = 0; y < wh; y++) for (let x = 0; x < ww; x++) {
      const l = lab.labels[y * ww + x]!;
      const i = (y0 + y) * w + x0 + x;
      if (l && touch[l]) feature[i] = 1;
      counted[i] = 1;
    }
  }
  for (let i = 0; i < n; i++) {
    if (!counted[i]) continue;
    if (feature[i]) sums.featurePx++;
    if (outline[i]) {
      sums.outlinePx++;
      if (feature[i]) sums.coveredPx++;
    }
  }
  return sums;
}

export interface ChipOutlineEval {
  chips: number;
  chipsWithSlicks: number;
  /** Pooled |outline ∩ feature| / |feature|. */
  completeness: number;
  /** Median over chips of the same ratio. */
  medianCompleteness: number;
  /** Pooled |outline ∩ feature| / |outline|. */
  insideFeature: number;
  /** Mean reported outline area per hit chip (km²). */
  meanOutlineKm2: number;
  seconds: number;
}

/** Outline completeness on the real validation oil chips (null when the chips are absent). */
export function evalChipOutlines(options: { limit?: number } = {}): ChipOutlineEval | { skipped: string } {
  const dir = defaultChipDir();
  if (!chipsAvailable(dir)) return { skipped: `real chips not found at ${dir}` };
  const model = loadOilModel();
  if (!model) return { skipped: 'no trained model' };
  const t0 = performance.now();
  const split = splitBySource(listChips(dir), SPLIT_SEED, VALIDATION_FRACTION);
  const oil = split.validation.filter((c) => c.label === 1).slice(0, options.limit ?? Infinity);
  const total: CompletenessSums = { featurePx: 0, coveredPx: 0, outlinePx: 0 };
  const perChip: number[] = [];
  let withSlicks = 0;
  let outlineKm2 = 0;
  for (const chip of oil) {
    const { input, params } = greyRasterInput(decodeGreyJpeg(readFileSync(chip.path)));
    const candidates = detectSlicksInRaster(input, params, { incidenceDeg: 35, model });
    const slicks = candidates.filter((c) => c.isSlick);
    if (slicks.length === 0) continue;
    withSlicks++;
    const outline = slickMaskOfRaster(input, candidates, params);
    const s = outlineCompleteness(input, outline, slicks, params.multilook);
    total.featurePx += s.featurePx;
    total.coveredPx += s.coveredPx;
    total.outlinePx += s.outlinePx;
    if (s.featurePx > 0) perChip.push(s.coveredPx / s.featurePx);
    let px = 0;
    for (let i = 0; i < outline.length; i++) px += outline[i]!;
    outlineKm2 += (px * input.pixelSpacing.range * input.pixelSpacing.azimuth) / 1e6;
  }
  return {
    chips: oil.length,
    chipsWithSlicks: withSlicks,
    completeness: total.featurePx ? total.coveredPx / total.featurePx : 0,
    medianCompleteness: median(perChip),
    insideFeature: total.outlinePx ? total.coveredPx / total.outlinePx : 0,
    meanOutlineKm2: withSlicks ? Math.round((100 * outlineKm2) / withSlicks) / 100 : 0,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
}

// ------------------------------------------------------------------ generated slicks (training/oilslick/outlineScene.ts)

const INCIDENCE = OUTLINE_SCENE_INCIDENCE_DEG;

export interface GeneratedOutlineScene {
  seed: number;
  windSpeed: number;
  truthPx: number;
  lookAlikePx: number;
  detectedPx: number;
  iou: number;
  lookAlikeFlaggedPx: number;
  otherFlaggedPx: number;
}

interface PixelSums {
  tp: number;
  fp: number;
  fn: number;
  la: number;
  laFlag: number;
}

function pixelSums(mask: Uint8Array, truth: Uint8Array, lookAlike: Uint8Array): PixelSums & { other: number; detected: number } {
  const s = { tp: 0, fp: 0, fn: 0, la: 0, laFlag: 0, other: 0, detected: 0 };
  for (let i = 0; i < mask.length; i++) {
    const m = mask[i]!;
    s.detected += m;
    if (truth[i]) {
      if (m) s.tp++;
      else s.fn++;
    } else if (m) {
      s.fp++;
      if (!lookAlike[i]) s.other++;
    }
    if (lookAlike[i]) {
      s.la++;
      if (m) s.laFlag++;
    }
  }
  return s;
}

export interface GeneratedOutlineDecision {
  decision: string;
  scenes: GeneratedOutlineScene[];
  pooledIou: number;
  precision: number;
  recall: number;
  lookAlikeFlagged: number;
}

export interface GeneratedOutlineEval {
  decisions: GeneratedOutlineDecision[];
  targets: { pooledIou: number; lookAlikeFlagged: number };
  seconds: number;
}

/**
 * Generated soft-edged broken slicks with pixel truth (see the file comment), scored twice:
 * with the calibrated defaults (the service's vetoes) and with the model alone (the outline's
 * own quality, whatever the vetoes decide).
 */
export function evalGeneratedOutlines(options: { scenes?: number } = {}): GeneratedOutlineEval {
  const t0 = performance.now();
  const calibrated = resolveOilSlickParams();
  const params = resolveOilSlickParams({ vetoRules: [] });
  const model = loadOilModel();
  const winds = [4, 6, 8, 5, 7, 9];
  const decisions = [
    { decision: `calibrated defaults (vetoes ${calibrated.vetoRules.join(', ') || 'none'})`, vetoes: calibrated.vetoRules as readonly string[], scenes: [] as GeneratedOutlineScene[], sums: { tp: 0, fp: 0, fn: 0, la: 0, laFlag: 0 } },
    { decision: 'model alone (no vetoes)', vetoes: [] as readonly string[], scenes: [] as GeneratedOutlineScene[], sums: { tp: 0, fp: 0, fn: 0, la: 0, laFlag: 0 } },
  ];
  for (let k = 0; k < (options.scenes ?? winds.length); k++) {
    const seed = 2400 + k;
    const windSpeed = winds[k % winds.length]!;
    const { input, truth, lookAlike } = generateOutlineScene(seed, windSpeed);
    const all = detectSlicksInRaster(input, params, { incidenceDeg: INCIDENCE, model });
    for (const d of decisions) {
      // A fragment goes with its slick: not reported when that slick is vetoed.
      const vetoed = (c: SlickCandidate): boolean => c.reasons.some((r) => d.vetoes.includes(r));
      const candidates = all.map((c) => ({ ...c, isSlick: c.isSlick && !vetoed(c) && (c.fragmentOf === null || !vetoed(all[c.fragmentOf]!)) }));
      const s = pixelSums(slickMaskOfRaster(input, candidates, params), truth, lookAlike);
      for (const key of ['tp', 'fp', 'fn', 'la', 'laFlag'] as const) d.sums[key] += s[key];
      d.scenes.push({ seed, windSpeed, truthPx: s.tp + s.fn, lookAlikePx: s.la, detectedPx: s.detected, iou: s.tp / Math.max(1, s.tp + s.fp + s.fn), lookAlikeFlaggedPx: s.laFlag, otherFlaggedPx: s.other });
    }
  }
  return {
    decisions: decisions.map(({ decision, scenes, sums }) => ({
      decision,
      scenes,
      pooledIou: sums.tp / Math.max(1, sums.tp + sums.fp + sums.fn),
      precision: sums.tp / Math.max(1, sums.tp + sums.fp),
      recall: sums.tp / Math.max(1, sums.tp + sums.fn),
      lookAlikeFlagged: sums.laFlag / Math.max(1, sums.la),
    })),
    targets: { pooledIou: 0.4, lookAlikeFlagged: 0.05 },
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
}

export function printOutlines(chips: ChipOutlineEval | { skipped: string }, generated: GeneratedOutlineEval): void {
  if ('skipped' in chips) console.log(`oil-slick outlines, real chips: SKIPPED — ${chips.skipped}`);
  else {
    console.log(`oil-slick outlines, REAL chips (validation oil chips, no pixel masks): completeness = share of the dark feature around each reported slick (local halfway threshold, ${COMPLETENESS_MARGIN_M} m around it) that the outline covers`);
    console.log(
      table(
        ['oil chips', 'with slicks', 'completeness (pooled)', 'median per chip', 'outline inside feature', 'mean outline km²', 's'],
        [[chips.chips, chips.chipsWithSlicks, f3(chips.completeness), f3(chips.medianCompleteness), f3(chips.insideFeature), chips.meanOutlineKm2, chips.seconds]],
      ),
    );
  }
  console.log('oil-slick outlines, generated (soft edges, broken fronts, arms, holes, faint tails; pixel truth)');
  for (const d of generated.decisions) {
    console.log(`${d.decision}:`);
    console.log(
      table(
        ['seed', 'wind m/s', 'truth px', 'detected px', 'IoU', 'look-alike px', 'flagged', 'other flagged'],
        d.scenes.map((s) => [s.seed, s.windSpeed, s.truthPx, s.detectedPx, f3(s.iou), s.lookAlikePx, s.lookAlikeFlaggedPx, s.otherFlaggedPx]),
      ),
    );
    console.log(
      `  pooled pixel IoU ${f3(d.pooledIou)} (precision ${f3(d.precision)}, recall ${f3(d.recall)}; target ≥ ${generated.targets.pooledIou}); look-alike pixels flagged ${f3(d.lookAlikeFlagged)} (target ≤ ${generated.targets.lookAlikeFlagged})`,
    );
  }
  console.log(`${generated.seconds} s`);
  console.log('');
}
