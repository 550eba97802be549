/**
 * The generated part of the training mix (issue 24 §2): candidates of harder-world scenes
 * (hardScenes.ts, variants ≥ 1 — never variant 0, the evaluation's scenes) on calibrated σ0,
 * labelled by the generator's truth. Each oil slick is an oil "chip" (a bag of the candidates
 * on it), each look-alike (biogenic film, ship wake, low-wind area, rain cell, internal waves,
 * upwelling) a no-oil chip of the candidates on it, and the rest of a scene's candidates one
 * no-oil chip ("open sea"). Scenes go whole to one cross-validation fold.
 *
 * Since the fifth pass also harder-world variants 13–20 at 9–12 m/s (films and wakes where the
 * held-out check still flagged them) and basic scenes (basicScenes.ts: the evaluation's basic
 * generator with other seeds; each calm patch a no-oil bag, the calm-3-2 kind, each slick an oil
 * bag), weighted by the configuration's `basicWeight` (train.ts).
 *
 * Soft-edged OIL too (outlineBags): scenes of the outline evaluation's generator
 * (outlineScene.ts: broken slicks with 40–200 m soft edges, gaps, arms, holes, faint tails; one
 * low-wind patch each) with other seeds than the evaluation's (OUTLINE_SEEDS, never 2400–2405),
 * so that a soft edge alone does not decide "not oil": each slick an oil bag, each low-wind
 * patch a no-oil bag, the rest "open sea".
 *
 * Cached as JSON under .tmp/oilslick-generated/ keyed by the parameters, the feature names and
 * the scene list (never committed).
 *
 *   node --import tsx training/oilslick/generated.ts [--part k/n] [--outline]    (writes the cache)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FEATURE_NAMES, featureVector } from '../../src/analysis/oilslick/featureVector.ts';
import { detectSlicksInRaster, detectSlicksInSafeDetailed, regionPolygons } from '../../src/analysis/oilslick/detect.ts';
import { resolveOilSlickParams } from '../../src/analysis/oilslick/params.ts';
import { intersectAoi } from '../../src/geo/clip.ts';
import type { Polygon } from '../../src/geo/types.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { writeSafeGrd, type SafeGrdSpec } from '../../src/synth/index.ts';
import { basicSceneSpec, basicVariantSeed } from './basicScenes.ts';
import type { ChipCandidates } from './extract.ts';
import { hardSceneSpec, type HardSetName } from './hardScenes.ts';
import { generateOutlineScene, OUTLINE_SCENE_INCIDENCE_DEG } from './outlineScene.ts';

/** Scene side (px), as the evaluation's. */
const SIZE = 3000;
/** Winds of the training scenes (the evaluation's are 6 and 9 m/s). */
const WINDS = [4, 5, 7, 8, 10];
/** Variants per set (variant v: wind WINDS[(v − 1) mod 5], layout index (v − 1) mod 2). */
export const GENERATED_VARIANTS = 12;
/**
 * Fifth pass (issue 24 §2): harder-world variants 13 … 20 at the strong winds the first twelve
 * lacked, where the held-out check still flagged films and wakes (9–12 m/s; seeds 22,300–29,401).
 */
const STRONG_WINDS = [9, 12, 10.5, 11];
export const STRONG_WIND_VARIANTS: readonly number[] = [13, 14, 15, 16, 17, 18, 19, 20];
/**
 * And basic scenes (basicScenes.ts, the evaluation's basic generator: two slicks, two calm
 * patches 3–8 km with the wind falling to 0.5–2 m/s) of other seeds than the evaluation's
 * (basicVariantSeed: 40,010 +, never 8200–8203), at 6–9 m/s: calm patches with a fast wind
 * drop (calm-3-2's kind), each patch a no-oil bag, each slick an oil bag.
 */
const BASIC_WINDS = [6, 7, 8, 9];
export const BASIC_VARIANTS = 12;
/** Basic variants 13 … 20 (seeds 40,130 … 40,203): fast-drop calm patches only (2.5–4 km, down to 0.3–1 m/s; basicSceneSpec fastDrop). */
export const FAST_DROP_VARIANTS: readonly number[] = [13, 14, 15, 16, 17, 18, 19, 20];

export interface GeneratedChip extends ChipCandidates {
  /** Scene (set and variant) the bag comes from: the fold unit. */
  scene: string;
  /** 'oil', the look-alike's cause, or 'open sea'. */
  kind: string;
}

const repoRoot = path.resolve(import.meta.dirname, '../..');
const CACHE_DIR = path.join(repoRoot, '.tmp/oilslick-generated');

export type GeneratedSetName = HardSetName | 'basic';

/**
 * The training mix's scenes. The fifth pass's scenes (strong-wind variants, basic scenes) and its
 * fast-drop basic variants are in the committed model's mix (candidate G, issue 24 §2), so they are
 * on by default and `npm run train:oilslick` reproduces it. OIL_MIX_FIFTH=0 leaves out the fifth
 * pass's scenes, OIL_MIX_FAST_DROP=0 the fast-drop variants: both 0 give the fourth pass's mix (the
 * list, and so the folds by scene, of the model before G).
 */
export function generatedScenes(
  opts: { fifth?: boolean; fastDrop?: boolean } = { fifth: process.env.OIL_MIX_FIFTH !== '0', fastDrop: process.env.OIL_MIX_FAST_DROP !== '0' },
): Array<{ set: GeneratedSetName; variant: number; wind: number; index: number }> {
  const out: Array<{ set: GeneratedSetName; variant: number; wind: number; index: number }> = [];
  for (let v = 1; v <= GENERATED_VARIANTS; v++) {
    for (const set of ['films', 'sea'] as const) out.push({ set, variant: v, wind: WINDS[(v - 1) % WINDS.length]!, index: (v - 1) % 2 });
  }
  if (opts.fifth) {
    for (const [k, v] of STRONG_WIND_VARIANTS.entries()) {
      for (const set of ['films', 'sea'] as const) out.push({ set, variant: v, wind: STRONG_WINDS[k % STRONG_WINDS.length]!, index: k % 2 });
    }
    for (let v = 1; v <= BASIC_VARIANTS; v++) out.push({ set: 'basic', variant: v, wind: BASIC_WINDS[(v - 1) % BASIC_WINDS.length]!, index: (v - 1) % 4 });
  }
  if (opts.fastDrop) for (const v of FAST_DROP_VARIANTS) out.push({ set: 'basic', variant: v, wind: BASIC_WINDS[(v - 1) % BASIC_WINDS.length]!, index: (v - 1) % 4 });
  return out;
}

/** The product spec of a generated (or held-out) scene: the harder world's or the basic world's. */
export function generatedSceneSpec(s: { set: GeneratedSetName; variant: number; wind: number; index: number }): Omit<SafeGrdSpec, 'width' | 'height' | 'pols'> {
  return s.set === 'basic'
    ? basicSceneSpec(s.wind, s.index, basicVariantSeed(s.variant, s.index), { fastDrop: FAST_DROP_VARIANTS.includes(s.variant) })
    : hardSceneSpec(s.set, s.wind, s.index, s.variant).spec;
}

function cacheKey(): string {
  const { minOilProbability: _p, vetoRules: _v, scaledInput: _s, ...params } = resolveOilSlickParams();
  const h = createHash('sha256');
  h.update(JSON.stringify({ params, names: FEATURE_NAMES, size: SIZE, v: 2 }));
  return h.digest('hex').slice(0, 12);
}

interface Truth {
  geometry: Polygon;
  properties: { kind: string; id: string; cause?: string };
}

const round = (v: number) => (Number.isFinite(v) ? Math.round(v * 1e5) / 1e5 : Number.NaN);

/** Labelled bags of one generated scene. */
async function sceneChips(dir: string, s: ReturnType<typeof generatedScenes>[number]): Promise<GeneratedChip[]> {
  const spec = generatedSceneSpec(s);
  const written = await writeSafeGrd(dir, { ...spec, width: SIZE, height: SIZE, pols: ['VV'] });
  try {
    const truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: Truth[] }).features.filter(
      (t) => t.properties.kind === 'oilslick' || t.properties.kind === 'lookalike',
    );
    // No candidate accepted (probability 1 is out of reach): features without outlines.
    const details = await detectSlicksInSafeDetailed(written.productPath, { params: { minOilProbability: 1, vetoRules: [] } });
    const product = await openSafeProduct(written.productPath);
    const scene = `${s.set}-${s.variant}`;
    const bags = new Map<string, GeneratedChip>();
    const bag = (id: string, label: 0 | 1, kind: string) => {
      let b = bags.get(id);
      if (!b) bags.set(id, (b = { file: `generated:${scene}:${id}`, label, source: `generated:${scene}`, scene, kind, candidates: [] }));
      return b;
    };
    for (const t of truth) bag(t.properties.id, t.properties.kind === 'oilslick' ? 1 : 0, t.properties.kind === 'oilslick' ? 'oil' : (t.properties.cause ?? 'low wind'));
    try {
      const toLonLat = (line: number, pixel: number) => product.geolocation.pixelToLonLat(line, pixel);
      for (const c of details.candidates) {
        if (c.reasons.includes('too_small')) continue;
        const polys = regionPolygons(c.region, 2, toLonLat);
        const on = truth.filter((t) => polys.some((p) => intersectAoi(t.geometry, p) !== null));
        const v = featureVector(c.features).map(round);
        // On oil wins (a slick crossing a look-alike is still oil); else every look-alike it touches.
        const oil = on.find((t) => t.properties.kind === 'oilslick');
        if (oil) bag(oil.properties.id, 1, 'oil').candidates.push(v);
        else if (on.length) for (const t of on) bag(t.properties.id, 0, t.properties.cause ?? 'low wind').candidates.push(v);
        else bag('open-sea', 0, 'open sea').candidates.push(v);
      }
    } finally {
      await product.close();
    }
    return [...bags.values()];
  } finally {
    rmSync(written.productPath, { recursive: true, force: true });
  }
}

/** Every generated bag, from the cache when present (a scene at a time: `part` k of n computes scenes k, k + n, …; the others must be cached). */
export async function generatedChips(log = (m: string) => process.stderr.write(m), part: [number, number] | null = null): Promise<GeneratedChip[]> {
  const key = cacheKey();
  const dir = path.join(CACHE_DIR, 'scenes');
  mkdirSync(dir, { recursive: true });
  const out: GeneratedChip[] = [];
  const t0 = performance.now();
  for (const [i, s] of generatedScenes().entries()) {
    if (part && i % part[1] !== part[0]) continue;
    const file = path.join(CACHE_DIR, `${key}-${s.set}-${s.variant}-${s.wind}-${s.index}.json`);
    if (existsSync(file)) {
      const rows = JSON.parse(readFileSync(file, 'utf8')) as GeneratedChip[];
      for (const r of rows) for (const v of r.candidates) for (let j = 0; j < v.length; j++) if (v[j] === null) v[j] = Number.NaN;
      out.push(...rows);
      continue;
    }
    const rows = await sceneChips(dir, s);
    writeFileSync(file, JSON.stringify(rows));
    out.push(...rows);
    log(`  generated ${s.set} v${s.variant} (${s.wind} m/s): ${out.length} bags, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  return out;
}

// ------------------------------------------------------------------ soft-edged oil (outlineScene.ts)

/** Seeds of the training's outline scenes (the evaluation's are 2400–2405). */
export const OUTLINE_SEEDS: readonly number[] = Array.from({ length: 12 }, (_, k) => 7000 + k);
/** Wind of an outline training scene: 3.5–10 m/s in 0.5 m/s steps. */
const outlineWind = (k: number): number => 3.5 + 0.5 * (k % 14);

function outlineCacheKey(): string {
  const { minOilProbability: _p, vetoRules: _v, scaledInput: _s, ...params } = resolveOilSlickParams();
  const h = createHash('sha256');
  h.update(JSON.stringify({ params, names: FEATURE_NAMES, v: 2 }));
  return h.digest('hex').slice(0, 12);
}

/** Labelled bags of one outline scene: a candidate touching the slick's truth is oil, else one touching the low-wind patch a look-alike, else open sea. */
export function outlineSceneBags(seed: number, windSpeed: number): GeneratedChip[] {
  const { input, truth, lookAlike } = generateOutlineScene(seed, windSpeed);
  const params = resolveOilSlickParams({ vetoRules: [] });
  const m = params.multilook;
  const candidates = detectSlicksInRaster(input, params, { incidenceDeg: OUTLINE_SCENE_INCIDENCE_DEG, model: null }).filter((c) => !c.reasons.includes('too_small'));
  const scene = `outline-${seed}`;
  const bags = new Map<string, GeneratedChip>();
  const bag = (id: string, label: 0 | 1, kind: string) => {
    let b = bags.get(id);
    if (!b) bags.set(id, (b = { file: `generated:${scene}:${id}`, label, source: `generated:${scene}`, scene, kind, candidates: [] }));
    return b;
  };
  bag('slick', 1, 'oil');
  bag('low-wind', 0, 'low wind');
  for (const c of candidates) {
    let onOil = false;
    let onLookAlike = false;
    const r = c.region.runs;
    for (let k = 0; k < r.length; k += 3) {
      for (let x = r[k + 1]!; x < r[k + 2]!; x++) {
        // The working pixel's full-resolution block.
        for (let dy = 0; dy < m; dy++) {
          const y = r[k]! * m + dy;
          if (y >= input.height) continue;
          for (let dx = 0; dx < m; dx++) {
            const xx = x * m + dx;
            if (xx >= input.width) continue;
            if (truth[y * input.width + xx]) onOil = true;
            else if (lookAlike[y * input.width + xx]) onLookAlike = true;
          }
        }
      }
    }
    const v = featureVector(c.features).map(round);
    if (onOil) bag('slick', 1, 'oil').candidates.push(v);
    else if (onLookAlike) bag('low-wind', 0, 'low wind').candidates.push(v);
    else bag('open-sea', 0, 'open sea').candidates.push(v);
  }
  return [...bags.values()];
}

/** Every outline-scene bag, from the cache when present (a scene at a time; `part` k of n computes scenes k, k + n, …). */
export function outlineBags(log = (m: string) => process.stderr.write(m), part: [number, number] | null = null): GeneratedChip[] {
  const key = outlineCacheKey();
  mkdirSync(CACHE_DIR, { recursive: true });
  const out: GeneratedChip[] = [];
  const t0 = performance.now();
  OUTLINE_SEEDS.forEach((seed, k) => {
    if (part && k % part[1] !== part[0]) return;
    const wind = outlineWind(k);
    const file = path.join(CACHE_DIR, `outline-${key}-${seed}-${wind}.json`);
    if (existsSync(file)) {
      const rows = JSON.parse(readFileSync(file, 'utf8')) as GeneratedChip[];
      for (const r of rows) for (const v of r.candidates) for (let i = 0; i < v.length; i++) if (v[i] === null) v[i] = Number.NaN;
      out.push(...rows);
      return;
    }
    const rows = outlineSceneBags(seed, wind);
    writeFileSync(file, JSON.stringify(rows));
    out.push(...rows);
    log(`  outline scene ${seed} (${wind} m/s): ${out.length} bags, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  });
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const k = process.argv.indexOf('--part');
  const part = k > 0 ? (process.argv[k + 1]!.split('/').map(Number) as [number, number]) : null;
  const rows = process.argv.includes('--outline') ? outlineBags(undefined, part) : await generatedChips(undefined, part);
  const byKind = new Map<string, { bags: number; candidates: number }>();
  for (const r of rows) {
    const k = byKind.get(r.kind) ?? { bags: 0, candidates: 0 };
    k.bags++;
    k.candidates += r.candidates.length;
    byKind.set(r.kind, k);
  }
  process.stderr.write(`${JSON.stringify(Object.fromEntries(byKind))}\n`);
}
