/**
 * A held-out check of oil models on harder-world scenes nobody has tuned on (issue 24 §2): the
 * generator of hardScenes.ts with variants ≥ HELD_OUT_FIRST_VARIANT — seeds 9300/9400 + index +
 * 1000 × variant, so ≥ 110,300, disjoint from the evaluation's (variant 0: 9300–9401), the
 * training mix's (variants 1–12: 10,300–21,401) and the soft-edged oil's (7000–7011, 2400–2405).
 * Weighted to what decided the last candidate: ship wakes at 9 m/s, the evaluation's wind that
 * the training mix (4, 5, 7, 8, 10 m/s) never had; then every other look-alike at 6 and 9 m/s and
 * the sea set at 3.5 and 12 m/s, outside the training winds.
 *
 * Each scene is detected once with nothing accepted (features and the look-alike rules of every
 * candidate); then each model (model.json files) decides as the engine does — a candidate is a
 * slick when not too small, p ≥ the model's threshold and no veto of the service's defaults
 * (params.ts) applies, and fragments join accepted slicks (detect.ts markFragments) — and a
 * look-alike is flagged when a reported candidate's region touches its truth polygon; a trail
 * is found when one touches its polygon. The regions are the candidates' own, not the refined
 * outlines the evaluation overlaps; `--scenes eval` runs the evaluation's four scenes
 * (variant 0) so the two can be compared, `--scenes basic` the evaluation's basic generated
 * set (eval/run.ts slickScene, basicScenes.ts), `--scenes fresh` the fifth pass's fresh
 * held-out scenes (freshScenes); `--explain ID` prints why the look-alike ID's best candidate
 * scores as it does (feature values and each feature's log-odds share along the trees). A scene's candidates are cached as JSON under
 * .tmp/oilslick-heldout/ (keyed by the engine's parameters and the feature names; never
 * committed), so another model is scored in seconds.
 *
 * `--service-vetoes a,b` decides with those vetoes instead of the service's. `--vetoes` prints, per model, what each look-alike rule would remove as a veto on its own (and
 * the service's set): the look-alikes and slicks the model alone reports that it drops.
 *
 *   node --import tsx training/oilslick/heldOut.ts --model A/model.json --model B/model.json [--scenes held-out|fresh|eval|basic] [--explain ID] [--vetoes] [--json FILE]
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { detectSlicksInSafeDetailed, markFragments, regionPolygons, type SlickCandidate } from '../../src/analysis/oilslick/detect.ts';
import { FEATURE_NAMES, featureVector } from '../../src/analysis/oilslick/featureVector.ts';
import { gbtMargin, sigmoid } from '../../src/analysis/oilslick/gbt.ts';
import { oilProbability, type OilModelFile } from '../../src/analysis/oilslick/model.ts';
import { LOOK_ALIKE_RULES, resolveOilSlickParams, type LookAlikeRule } from '../../src/analysis/oilslick/params.ts';
import { intersectAoi } from '../../src/geo/clip.ts';
import type { Polygon } from '../../src/geo/types.ts';
import { openSafeProduct } from '../../src/imagery/index.ts';
import { writeSafeGrd } from '../../src/synth/index.ts';
import { BASIC_VARIANTS, GENERATED_VARIANTS, generatedSceneSpec, STRONG_WIND_VARIANTS, type GeneratedSetName } from './generated.ts';

/** Scene side (px), as the evaluation's and the training mix's. */
const SIZE = 3000;
/** First held-out variant: far above the training mix's (1 … GENERATED_VARIANTS). */
export const HELD_OUT_FIRST_VARIANT = 101;

export interface HeldOutScene {
  /** A harder-world set (hardScenes.ts) or the basic world (basicScenes.ts). */
  set: GeneratedSetName;
  wind: number;
  index: number;
  variant: number;
}

/** The held-out scenes: 12 sea scenes at 9 m/s (24 ship wakes), then 6 and 9 m/s films, 6 m/s sea, and the sea at 3.5 and 12 m/s. */
export function heldOutScenes(): HeldOutScene[] {
  const plan: Array<[GeneratedSetName, number, number]> = [
    ['sea', 9, 12],
    ['films', 9, 4],
    ['films', 6, 4],
    ['sea', 6, 4],
    ['sea', 3.5, 2],
    ['sea', 12, 2],
  ];
  const out: HeldOutScene[] = [];
  let variant = HELD_OUT_FIRST_VARIANT;
  for (const [set, wind, n] of plan) for (let k = 0; k < n; k++, variant++) out.push({ set, wind, index: k % 2, variant });
  if (HELD_OUT_FIRST_VARIANT <= Math.max(GENERATED_VARIANTS, ...STRONG_WIND_VARIANTS)) throw new Error('held-out variants overlap the training mix');
  return out;
}

/** First variant of the fresh held-out scenes (issue 24 §2 fifth pass): chosen before any model of that pass was scored. */
export const FRESH_FIRST_VARIANT = 201;

/**
 * Fresh held-out scenes for the fifth pass, whose training mix has films and wakes at 9–12 m/s
 * and basic calm patches: the held-out plan again with variants 201 … 228 (harder-world seeds
 * ≥ 210,300, so neither the first held-out check's 110,300 … 137,401 nor the training mix's), and
 * 12 basic scenes (variants 201 … 212, seeds 42,010 … 42,123; the training's are 40,010 … 40,123,
 * the evaluation's 8200 … 8203) at 5–9 m/s: 24 calm patches, 24 slicks.
 */
export function freshScenes(): HeldOutScene[] {
  const shift = FRESH_FIRST_VARIANT - HELD_OUT_FIRST_VARIANT;
  const out = heldOutScenes().map((s) => ({ ...s, variant: s.variant + shift }));
  const winds = [5, 6, 7, 8, 9, 7.5];
  for (let k = 0; k < 12; k++) out.push({ set: 'basic', wind: winds[k % winds.length]!, index: k % 4, variant: FRESH_FIRST_VARIANT + k });
  if (FRESH_FIRST_VARIANT <= Math.max(BASIC_VARIANTS, HELD_OUT_FIRST_VARIANT + heldOutScenes().length)) throw new Error('fresh variants overlap');
  return out;
}

/** The evaluation's basic scenes (eval/run.ts slickScene: seeds 8200 … 8203 at 5, 6, 7, 8 m/s; calm-3-2 is the third's). */
export function basicEvalScenes(): HeldOutScene[] {
  return [5, 6, 7, 8].map((wind, index) => ({ set: 'basic', wind, index, variant: 0 }));
}

/** The evaluation's own four scenes (eval/oilHard.ts: variant 0 at 6 and 9 m/s). */
export function evalScenes(): HeldOutScene[] {
  return (['films', 'sea'] as const).flatMap((set) => [6, 9].map((wind, index) => ({ set, wind, index, variant: 0 })));
}

interface Truth {
  geometry: Polygon;
  properties: { kind: string; id: string; cause?: string };
}

/** One truth object and the candidates that touch it. */
interface Target {
  scene: string;
  id: string;
  wind: number;
  /** 'oil' or the look-alike's cause. */
  kind: string;
  candidates: number[];
}

interface SceneCandidates {
  scene: HeldOutScene;
  candidates: SlickCandidate[];
  targets: Target[];
  spacing: { range: number; azimuth: number };
}

const CACHE_DIR = path.join(path.resolve(import.meta.dirname, '../..'), '.tmp/oilslick-heldout');

function cacheFile(s: HeldOutScene): string {
  const { minOilProbability: _p, vetoRules: _v, scaledInput: _s, ...params } = resolveOilSlickParams();
  const key = createHash('sha256').update(JSON.stringify({ params, names: FEATURE_NAMES, size: SIZE, v: 1 })).digest('hex').slice(0, 12);
  return path.join(CACHE_DIR, `${key}-${s.set}-${s.variant}-${s.wind}-${s.index}.json`);
}

/** JSON keeps NaN and ±Infinity (features may hold them) as strings. */
const keepNonFinite = (_k: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
const reviveNonFinite = (_k: string, v: unknown) => (v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? Number(v) : v);

/** sceneCandidates from the cache when present (only what deciding needs: features, rules, the region's runs and box). */
async function cachedSceneCandidates(dir: string, s: HeldOutScene): Promise<SceneCandidates> {
  const file = cacheFile(s);
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, 'utf8'), reviveNonFinite) as SceneCandidates & { candidates: Array<SlickCandidate & { region: { runs: number[] } }> };
    for (const c of r.candidates) c.region.runs = Int32Array.from(c.region.runs) as never;
    return r;
  }
  const r = await sceneCandidates(dir, s);
  const slim = {
    ...r,
    candidates: r.candidates.map((c) => ({ ...c, region: { box: c.region.box, runs: Array.from(c.region.runs) } })),
  };
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(slim, keepNonFinite));
  return r;
}

/** Detect once, nothing accepted: every candidate's features and rules, and what it touches. */
async function sceneCandidates(dir: string, s: HeldOutScene): Promise<SceneCandidates> {
  const spec = generatedSceneSpec(s);
  const written = await writeSafeGrd(dir, { ...spec, width: SIZE, height: SIZE, pols: ['VV'] });
  try {
    const truth = (JSON.parse(readFileSync(written.groundTruthPath, 'utf8')) as { features: Truth[] }).features.filter(
      (t) => t.properties.kind === 'oilslick' || t.properties.kind === 'lookalike',
    );
    const params = resolveOilSlickParams();
    const details = await detectSlicksInSafeDetailed(written.productPath, { params: { minOilProbability: 1, vetoRules: [] } });
    const product = await openSafeProduct(written.productPath);
    const name = `${s.set}-v${s.variant}-${s.wind}`;
    try {
      const ann = (product.bands['VV'] ?? Object.values(product.bands)[0]!).annotation;
      const spacing = { range: ann.rangePixelSpacing * params.multilook, azimuth: ann.azimuthPixelSpacing * params.multilook };
      const toLonLat = (line: number, pixel: number) => product.geolocation.pixelToLonLat(line, pixel);
      const polys = details.candidates.map((c) => regionPolygons(c.region, params.multilook, toLonLat));
      const targets: Target[] = truth.map((t) => ({
        scene: name,
        id: t.properties.id,
        wind: s.wind,
        kind: t.properties.kind === 'oilslick' ? 'oil' : (t.properties.cause ?? 'low wind'),
        candidates: polys.flatMap((ps, k) => (ps.some((p) => intersectAoi(t.geometry, p) !== null) ? [k] : [])),
      }));
      return { scene: s, candidates: details.candidates, targets, spacing };
    } finally {
      await product.close();
    }
  } finally {
    rmSync(written.productPath, { recursive: true, force: true });
  }
}

/** The engine's decision with `model` on candidates detected without one (classifyRegions' rules, then fragments). */
export function decide(candidates: readonly SlickCandidate[], model: OilModelFile, vetoRules: readonly LookAlikeRule[], spacing: { range: number; azimuth: number }): SlickCandidate[] {
  const params = resolveOilSlickParams({ vetoRules: vetoRules as LookAlikeRule[] });
  const out = candidates.map((c) => {
    const rules = c.reasons.filter((r) => r !== 'low_probability');
    const tooSmall = rules.includes('too_small');
    const p = oilProbability(model, c.features);
    const isSlick = !tooSmall && p >= (model.calibratedThreshold ?? model.threshold) && !rules.some((r) => (vetoRules as readonly string[]).includes(r));
    return { ...c, oilProbability: p, isSlick, fragmentOf: null };
  });
  markFragments(out, spacing, params);
  return out;
}

interface TargetScore {
  scene: string;
  id: string;
  wind: number;
  kind: string;
  /** Highest oil probability among the candidates on it (null: none). */
  maxP: number | null;
  /** Reported with the service's vetoes / by the model alone. */
  reported: boolean;
  reportedAlone: boolean;
}

export interface ModelScore {
  model: string;
  threshold: number;
  targets: TargetScore[];
}

function scoreModel(name: string, model: OilModelFile, scenes: readonly SceneCandidates[], vetoes: readonly LookAlikeRule[] = resolveOilSlickParams().vetoRules): ModelScore {
  const targets: TargetScore[] = [];
  for (const s of scenes) {
    const withVetoes = decide(s.candidates, model, vetoes, s.spacing);
    const alone = decide(s.candidates, model, [], s.spacing);
    for (const t of s.targets) {
      const ps = t.candidates.filter((k) => !s.candidates[k]!.reasons.includes('too_small')).map((k) => withVetoes[k]!.oilProbability);
      targets.push({
        scene: t.scene,
        id: t.id,
        wind: t.wind,
        kind: t.kind,
        maxP: ps.length ? Math.round(Math.max(...ps) * 1000) / 1000 : null,
        reported: t.candidates.some((k) => withVetoes[k]!.isSlick),
        reportedAlone: t.candidates.some((k) => alone[k]!.isSlick),
      });
    }
  }
  return { model: name, threshold: model.calibratedThreshold ?? model.threshold, targets };
}

/**
 * What each veto removes (issue 24 §2): per rule alone and the service's set, of the objects the
 * model alone reports, how many look-alikes and how many slicks it drops (the decision of `decide`).
 */
export function vetoEffects(model: OilModelFile, scenes: readonly SceneCandidates[], service: readonly LookAlikeRule[] = resolveOilSlickParams().vetoRules): Array<{ vetoes: string; lookAlikes: number; lookAlikesRemoved: number; slicks: number; slicksRemoved: number }> {
  const sets: LookAlikeRule[][] = [...LOOK_ALIKE_RULES.filter((r) => r !== 'too_small').map((r) => [r]), [...service]];
  const count = (vetoes: readonly LookAlikeRule[]) => {
    let la = 0;
    let oil = 0;
    for (const s of scenes) {
      const d = decide(s.candidates, model, vetoes, s.spacing);
      for (const t of s.targets) if (t.candidates.some((k) => d[k]!.isSlick)) (t.kind === 'oil' ? oil++ : la++);
    }
    return { la, oil };
  };
  const alone = count([]);
  return sets.map((v) => {
    const c = count(v);
    return { vetoes: v.join(' + ') || '(none)', lookAlikes: alone.la, lookAlikesRemoved: alone.la - c.la, slicks: alone.oil, slicksRemoved: alone.oil - c.oil };
  });
}

/** Per kind (and wind for ship wakes): objects, reported with the service's vetoes, reported by the model alone. */
export function summarise(score: ModelScore): Array<{ group: string; n: number; reported: number; reportedAlone: number }> {
  const groups = new Map<string, { group: string; n: number; reported: number; reportedAlone: number }>();
  const add = (group: string, t: TargetScore) => {
    const g = groups.get(group) ?? { group, n: 0, reported: 0, reportedAlone: 0 };
    g.n++;
    if (t.reported) g.reported++;
    if (t.reportedAlone) g.reportedAlone++;
    groups.set(group, g);
  };
  for (const t of score.targets) {
    add(t.kind === 'oil' ? 'oil (trails)' : t.kind === 'ship wake' ? `ship wake ${t.wind} m/s` : t.kind, t);
    if (t.kind !== 'oil') add('all look-alikes', t);
  }
  return [...groups.values()].sort((a, b) => a.group.localeCompare(b.group));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { model: { type: 'string', multiple: true }, scenes: { type: 'string', default: 'held-out' }, json: { type: 'string' }, explain: { type: 'string' }, vetoes: { type: 'boolean', default: false }, 'service-vetoes': { type: 'string' } } });
  // --service-vetoes low_wind: decide with these vetoes instead of the service's (a candidate decision).
  const service = resolveOilSlickParams(values['service-vetoes'] === undefined ? {} : { vetoRules: values['service-vetoes'].split(',').filter(Boolean) as LookAlikeRule[] }).vetoRules;
  const files = values.model ?? [];
  if (files.length === 0) throw new Error('--model FILE (one or more model.json files)');
  const models = files.map((f) => {
    const m = JSON.parse(readFileSync(f, 'utf8')) as OilModelFile;
    if (m.gbt.featureNames.join() !== FEATURE_NAMES.join()) throw new Error(`${f}: trained on other features`);
    return { name: f, model: m };
  });
  const list = { eval: evalScenes, basic: basicEvalScenes, fresh: freshScenes, 'held-out': heldOutScenes }[values.scenes as 'eval']?.();
  if (!list) throw new Error('--scenes held-out|fresh|eval|basic');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oil-held-out-'));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const scenes: SceneCandidates[] = [];
  try {
    for (const s of list) {
      scenes.push(await cachedSceneCandidates(dir, s));
      process.stderr.write(`  ${s.set} v${s.variant} ${s.wind} m/s: ${scenes.at(-1)!.candidates.length} candidates, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpu = process.cpuUsage(c0);
  const scores = models.map(({ name, model }) => scoreModel(name, model, scenes, service));
  for (const s of scores) {
    console.log(`\n${s.model} (threshold ${s.threshold.toFixed(3)}): reported with the service's vetoes / by the model alone`);
    for (const g of summarise(s)) console.log(`  ${g.group.padEnd(24)} ${String(g.n).padStart(3)}  ${g.reported} / ${g.reportedAlone}`);
    const flagged = s.targets.filter((t) => t.kind !== 'oil' && (t.reported || t.reportedAlone));
    for (const t of flagged) console.log(`    flagged: ${t.scene} ${t.id} (${t.kind}, p ${t.maxP})${t.reported ? '' : ' — model alone only'}`);
  }
  if (values.explain) for (const { name, model } of models) explain(name, model, scenes, values.explain);
  if (values.vetoes) {
    for (const { name, model } of models) {
      console.log(`\n${name}: each veto on its own — of what the model alone reports, removed look-alikes / removed slicks`);
      for (const v of vetoEffects(model, scenes, service)) console.log(`  ${v.vetoes.padEnd(30)} look-alikes ${v.lookAlikesRemoved} of ${v.lookAlikes}, slicks ${v.slicksRemoved} of ${v.slicks}`);
    }
  }
  console.log(`\nscenes ${scenes.length}, ${((performance.now() - t0) / 1000).toFixed(0)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU s, load ${os.loadavg()[0]!.toFixed(1)}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ scenes: list, scores }, null, 1)}\n`);
}

/**
 * Why a look-alike's best candidate scores as it does: its feature values, and for each feature
 * the log-odds it adds over the same kind's other objects — the margin drop when that one value
 * is replaced by the median of the other objects' best candidates (the one-at-a-time share).
 */
function explain(name: string, model: OilModelFile, scenes: readonly SceneCandidates[], id: string): void {
  const best = (s: SceneCandidates, t: Target) => {
    const ok = t.candidates.filter((k) => !s.candidates[k]!.reasons.includes('too_small'));
    if (ok.length === 0) return null;
    const k = ok.reduce((a, b) => (oilProbability(model, s.candidates[b]!.features) > oilProbability(model, s.candidates[a]!.features) ? b : a));
    return s.candidates[k]!;
  };
  const all = scenes.flatMap((s) => s.targets.map((t) => ({ s, t })));
  const me = all.find(({ t }) => t.id === id);
  if (!me) throw new Error(`--explain ${id}: no such object in these scenes`);
  const cand = best(me.s, me.t);
  if (!cand) return void console.log(`\n${id}: no candidate`);
  const x = featureVector(cand.features);
  const others = all.filter(({ t }) => t !== me.t && t.kind === me.t.kind).map(({ s, t }) => best(s, t)).filter((c) => c !== null).map((c) => featureVector(c.features));
  const median = (v: number[]) => {
    const f = v.filter(Number.isFinite).sort((a, b) => a - b);
    return f.length ? f[Math.floor(f.length / 2)]! : Number.NaN;
  };
  const margin = gbtMargin(model.gbt, x);
  const rows = FEATURE_NAMES.map((f, j) => {
    const ref = median(others.map((o) => o[j]!));
    const y = [...x];
    y[j] = ref;
    return { f, value: x[j]!, ref, share: margin - gbtMargin(model.gbt, y) };
  }).sort((a, b) => b.share - a.share);
  const r = (v: number) => (Number.isFinite(v) ? v.toPrecision(3) : String(v));
  console.log(`\n${name}: ${id} (${me.t.kind}, ${me.t.scene}) best candidate p ${r(sigmoid(margin))}, rules [${cand.reasons.join(', ')}]; against the median of ${others.length} other ${me.t.kind} objects:`);
  for (const row of rows) console.log(`  ${row.f.padEnd(28)} ${r(row.value).padStart(9)}  (others ${r(row.ref).padStart(9)})  ${row.share >= 0 ? '+' : ''}${row.share.toFixed(2)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
