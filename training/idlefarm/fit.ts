/**
 * Fit the idle-farmland logistic model (src/analysis/idlefarm/model.json) on generated seasons:
 *
 *   nice -n 10 node --import tsx training/idlefarm/fit.ts [--dry-run]
 *
 * Each season is one generated stack (src/synth/fields.ts: 36 fields, VV+VH RTC at 30 m,
 * speckle, missing dates): crops (winter wheat, maize, rice, soybean), managed meadows with
 * 3–5 cuts (in use), and fallow (bare with tillage, grass, weedy regrowth). Seeds 101–116 are
 * full years, 121–132 April–September windows (the winter wheat canopy already up: only its
 * harvest shows). The fields are read through the same series reader and season statistics
 * as the detector and labelled by the generator's truth (idle = fallow). The other generator,
 * src/synth/rtc.ts farmland (and the demo archive's farmland, written by it), is held out
 * entirely: eval/idlefarm.ts scores on it.
 * Logistic regression by iteratively reweighted least squares on standardised features with a
 * small ridge, so the fit is deterministic: the same seeds give the same coefficients. The
 * evaluation (eval/idlefarm.ts) uses other seeds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FEATURE_NAMES, featureVector, MODEL_URL, type IdleModel } from '../../src/analysis/idlefarm/model.ts';
import { seasonStats } from '../../src/analysis/idlefarm/season.ts';
import { readFieldSeries } from '../../src/analysis/idlefarm/series.ts';
import type { AoiGeometry } from '../../src/geo/types.ts';
import { writeFieldSeason, type SeasonStackSpec } from '../../src/synth/fields.ts';

/** The fitted seasons: full years and April–September windows, a sixth of the fields meadows. */
export const FIT_SEASONS: SeasonStackSpec[] = [
  ...Array.from({ length: 16 }, (_, i) => ({ seed: 101 + i, meadowShare: 1 / 6 })),
  ...Array.from({ length: 12 }, (_, i) => ({ seed: 121 + i, meadowShare: 1 / 6, start: `2023-0${3 + (i % 3)}-${String(1 + 9 * (i % 3)).padStart(2, '0')}`, count: 14 + (i % 4) })),
];
const RIDGE = 1e-3;

export interface LabelledField {
  seed: number;
  id: string;
  cls: string;
  idle: boolean;
  features: number[];
}

/** Features and labels of every decidable field of the generated season `seed`. */
export async function labelledFields(spec: SeasonStackSpec, workDir: string): Promise<LabelledField[]> {
  const seed = spec.seed;
  const dir = path.join(workDir, `season-${seed}`);
  const season = await writeFieldSeason(dir, spec);
  try {
    const series = await readFieldSeries(season.scenes, season.fields.features.map((f) => f.geometry as AoiGeometry));
    const out: LabelledField[] = [];
    season.truth.forEach((t, f) => {
      const s = seasonStats(series.dates, series.vv[f]!, series.vh[f]!);
      if (s.stats) out.push({ seed, id: t.id, cls: t.cls, idle: t.idle, features: featureVector(s.stats) });
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Solve A x = b (small, symmetric positive definite) by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Logistic regression (IRLS, ridge on the standardised weights, not the intercept). Returns raw-scale coefficients. */
export function fitLogistic(x: number[][], y: number[], ridge = RIDGE): { intercept: number; weights: number[]; iterations: number } {
  const d = x[0]!.length;
  const mean = Array.from({ length: d }, (_, j) => x.reduce((s, r) => s + r[j]!, 0) / x.length);
  const sd = Array.from({ length: d }, (_, j) => Math.sqrt(x.reduce((s, r) => s + (r[j]! - mean[j]!) ** 2, 0) / x.length) || 1);
  const z = x.map((r) => [1, ...r.map((v, j) => (v - mean[j]!) / sd[j]!)]);
  let beta = new Array(d + 1).fill(0) as number[];
  let iterations = 0;
  for (; iterations < 100; iterations++) {
    const h = Array.from({ length: d + 1 }, () => new Array(d + 1).fill(0) as number[]);
    const g = new Array(d + 1).fill(0) as number[];
    for (let i = 0; i < z.length; i++) {
      const eta = z[i]!.reduce((s, v, j) => s + v * beta[j]!, 0);
      const p = 1 / (1 + Math.exp(-eta));
      const w = Math.max(p * (1 - p), 1e-9);
      for (let a = 0; a <= d; a++) {
        g[a]! += (y[i]! - p) * z[i]![a]!;
        for (let b = 0; b <= d; b++) h[a]![b]! += w * z[i]![a]! * z[i]![b]!;
      }
    }
    for (let a = 1; a <= d; a++) {
      h[a]![a]! += ridge * z.length;
      g[a]! -= ridge * z.length * beta[a]!;
    }
    const step = solve(h, g);
    beta = beta.map((b, j) => b + step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  const weights = beta.slice(1).map((b, j) => b / sd[j]!);
  const intercept = beta[0]! - weights.reduce((s, w, j) => s + w * mean[j]!, 0);
  return { intercept, weights, iterations };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean' } } });
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'idlefarm-fit-'));
  const rows: LabelledField[] = [];
  try {
    for (const spec of FIT_SEASONS) {
      rows.push(...(await labelledFields(spec, workDir)));
      process.stderr.write(`seed ${spec.seed}: ${rows.length} fields\n`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const fit = fitLogistic(rows.map((r) => r.features), rows.map((r) => (r.idle ? 1 : 0)));
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  const model: IdleModel = {
    featureNames: [...FEATURE_NAMES],
    intercept: round(fit.intercept),
    weights: fit.weights.map(round),
    threshold: 0.5,
    training: {
      script: 'training/idlefarm/fit.ts',
      generator: 'src/synth/fields.ts writeFieldSeason (meadowShare 1/6; full years and April–September windows)',
      seeds: '101-116 (full years), 121-132 (windows)',
      heldOut: 'src/synth/rtc.ts farmland (eval/idlefarm.ts)',
      fields: rows.length,
      idleFields: rows.filter((r) => r.idle).length,
      ridge: RIDGE,
      iterations: fit.iterations,
    },
  };
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const r of rows) {
    const z = model.intercept + model.weights.reduce((s, w, j) => s + w * r.features[j]!, 0);
    const idle = 1 / (1 + Math.exp(-z)) >= model.threshold;
    if (idle && r.idle) tp++;
    else if (idle) fp++;
    else if (r.idle) fn++;
  }
  model.training.trainingF1 = round((2 * tp) / (2 * tp + fp + fn));
  const text = `${JSON.stringify(model, null, 2)}\n`;
  process.stdout.write(text);
  if (!values['dry-run']) writeFileSync(MODEL_URL, text);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
