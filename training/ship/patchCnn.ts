/**
 * Issue 23 §1 experiment: does a SMALL CNN on a patch around each candidate, trained in-process
 * on the CPU, separate ships from pier heads / quay clutter better than the GBT candidate
 * classifier (src/analysis/ship/classifier.ts)? SSDD development chips only, 3 folds by run
 * (fitClassifier.ts's folds); data from training/ship/patchCnnData.ts (run it first).
 *
 *   node --import tsx training/ship/patchCnn.ts train --data /tmp/p4 --fold 0 [--epochs 8] [--neg-keep 1] [--out /tmp/f0.json]
 *     fits on the other folds' patches (candidates, ship centres, random positions; jitter,
 *     flips, 90° rotations; inshore chips weighted ×2, classes balanced) and writes the held-out
 *     candidates' logits for every --score data set (e.g. --score /tmp/p4,/tmp/p3), or with
 *     --fold all only the weights (--weights FILE; folds write theirs too).
 *   node --import tsx training/ship/patchCnn.ts score --weights /tmp/w0.json --score /tmp/p3 --out /tmp/f0-p3.json
 *   node --import tsx training/ship/patchCnn.ts eval --data /tmp/p4 --oof /tmp/f0.json,/tmp/f1.json,/tmp/f2.json
 *     per-candidate AUC and object P/R (eval matching, re-run on the kept candidates per chip)
 *     of the GBT, the CNN and their sum of logits.
 *   node --import tsx training/ship/patchCnn.ts stack --data /tmp/p4 --oof /tmp/f0.json,/tmp/f1.json,/tmp/f2.json
 *     the CNN's out-of-fold logit as an 18th tree feature (same folds) against the 17-feature
 *     trees: precision at fixed recalls (see stack()).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { MATCH_DISTANCE_M, SSDD_PIXEL_M } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import { mulberry32 } from '../../src/prng.ts';
import { CANDIDATE_FEATURES } from '../../src/analysis/ship/classifier.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { trainGbt } from '../oilslick/gbtTrain.ts';
import { CANDIDATE_GBT, precisionAtRecall } from './chipCandidates.ts';
import { JITTER, STORED, readPatchData, type PatchData } from './patchCnnData.ts';
import { Adam, PATCH, type CnnWeights, allocActivations, backward, forward, forwardMacs, initCnn, toJson, zeroGrads } from './patchCnnNet.ts';
import { arg } from './args.ts';

export const CHANNELS = [8, 16, 32];

/** Crop (PATCH × PATCH at offset oy, ox) of stored patch i, transformed by one of the 8 dihedral maps. */
function crop(data: Float32Array, i: number, oy: number, ox: number, t: number, out: Float32Array): Float32Array {
  const base = i * STORED * STORED;
  const n = PATCH - 1;
  for (let r = 0; r < PATCH; r++)
    for (let c = 0; c < PATCH; c++) {
      let rr = r;
      let cc = c;
      if (t & 1) cc = n - cc;
      if (t & 2) rr = n - rr;
      if (t & 4) [rr, cc] = [cc, rr];
      out[r * PATCH + c] = data[base + (oy + rr) * STORED + ox + cc]!;
    }
  return out;
}

function train(d: PatchData, fold: number | 'all', epochs: number, negKeep = 1) {
  const cpu0 = process.cpuUsage();
  // negKeep < 1: only that share (seeded draw) of the candidates that are not ships, to bound the
  // CPU time now that split clusters give ~4× the candidates (the class weights rebalance).
  const keep = mulberry32(5);
  const idx = d.rows.map((r, i) => [r, i] as const).filter(([r]) => (fold === 'all' || r.fold !== fold) && (r.kind !== 'candidate' || r.y === 1 || keep() < negKeep));
  const pos = idx.filter(([r]) => r.y).length;
  const neg = idx.length - pos;
  // Class-balanced, inshore ×2.
  const weight = idx.map(([r]) => (r.y ? idx.length / (2 * pos) : idx.length / (2 * neg)) * (r.inshore ? 2 : 1));
  const wMean = weight.reduce((a, b) => a + b, 0) / weight.length;
  const net = initCnn(CHANNELS, PATCH, 23);
  const a = allocActivations(net);
  const g = zeroGrads(net);
  const scratch = { d: [] as Float32Array[] };
  const opt = new Adam(net, 2e-3, 1e-4);
  const rand = mulberry32(fold === 'all' ? 99 : 17 + fold);
  const x = new Float32Array(PATCH * PATCH);
  const order = idx.map((_, k) => k);
  const batch = 32;
  for (let e = 0; e < epochs; e++) {
    opt.lr = 2e-3 * 0.5 * (1 + Math.cos((Math.PI * e) / epochs));
    for (let k = order.length - 1; k > 0; k--) {
      const j = Math.floor(rand() * (k + 1));
      [order[k], order[j]] = [order[j]!, order[k]!];
    }
    let loss = 0;
    let inBatch = 0;
    for (const k of order) {
      const [r, i] = idx[k]!;
      crop(d.patches, i, Math.floor(rand() * (2 * JITTER + 1)), Math.floor(rand() * (2 * JITTER + 1)), Math.floor(rand() * 8), x);
      const z = forward(net, x, a);
      const p = 1 / (1 + Math.exp(-z));
      const w = weight[k]! / wMean;
      loss += w * (r.y ? -Math.log(p + 1e-9) : -Math.log(1 - p + 1e-9));
      backward(net, a, w * (p - r.y), g, scratch);
      if (++inBatch === batch) {
        opt.step(net, g, batch);
        inBatch = 0;
      }
    }
    if (inBatch) opt.step(net, g, inBatch);
    const u = process.cpuUsage(cpu0);
    console.log(`fold ${fold} epoch ${e + 1}/${epochs}: loss ${(loss / order.length).toFixed(4)}, ${((u.user + u.system) / 1e6).toFixed(0)} CPU s`);
  }
  const u = process.cpuUsage(cpu0);
  return { net, cpuS: (u.user + u.system) / 1e6, samples: idx.length };
}

/** Logits of the candidates of `d` in `fold` (centre crop, no flip), and the CPU µs per candidate. */
function score(net: ReturnType<typeof initCnn>, d: PatchData, fold: number) {
  const a = allocActivations(net);
  const x = new Float32Array(PATCH * PATCH);
  const out: Record<number, number> = {};
  const u0 = process.cpuUsage();
  let n = 0;
  d.rows.forEach((r, i) => {
    if (r.kind !== 'candidate' || r.fold !== fold) return;
    out[i] = forward(net, crop(d.patches, i, JITTER, JITTER, 0, x), a);
    n++;
  });
  const u = process.cpuUsage(u0);
  return { logits: out, usPerCandidate: (u.user + u.system) / Math.max(1, n) };
}

// ------------------------------------------------------------------------------ evaluation

function auc(scores: number[], ys: number[]): number {
  const o = scores.map((s, i) => [s, ys[i]!] as const).sort((p, q) => p[0] - q[0]);
  let rankSum = 0;
  let npos = 0;
  for (let i = 0; i < o.length; ) {
    let j = i;
    while (j < o.length && o[j]![0] === o[i]![0]) j++;
    const avg = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (o[k]![1]) (rankSum += avg), npos++;
    i = j;
  }
  const nneg = o.length - npos;
  return (rankSum - (npos * (npos + 1)) / 2) / (npos * nneg);
}

/** Object P/R per chip kind when the candidates with score ≥ t are kept (eval matching re-run per chip). */
function objectPr(d: PatchData, cand: number[], s: Map<number, number>, t: number) {
  const byChip = new Map<number, number[]>();
  for (const i of cand) if (s.get(i)! >= t) byChip.set(d.rows[i]!.chip, [...(byChip.get(d.rows[i]!.chip) ?? []), i]);
  const acc = { inshore: { tp: 0, fp: 0, n: 0 }, offshore: { tp: 0, fp: 0, n: 0 } };
  for (const c of d.chips) {
    const a = acc[c.inshore ? 'inshore' : 'offshore'];
    const kept = byChip.get(c.number) ?? [];
    const truth = c.ships.map((x, id) => ({ ...x, certain: true, id }));
    const m = scoreMatches(kept.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (k, tr) => Math.hypot(d.rows[kept[k]!]!.row - tr.row, d.rows[kept[k]!]!.col - tr.col));
    a.tp += m.truePositives;
    a.fp += m.falsePositives;
    a.n += c.ships.length;
  }
  const pr = (a: { tp: number; fp: number; n: number }) => {
    const p = a.tp + a.fp ? a.tp / (a.tp + a.fp) : 1;
    const r = a.tp / a.n;
    return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
  };
  return { inshore: pr(acc.inshore), offshore: pr(acc.offshore) };
}

function evaluate(d: PatchData, logits: Map<number, number>) {
  const f3 = (v: number) => v.toFixed(3);
  const cand = d.rows.map((r, i) => [r, i] as const).filter(([r]) => r.kind === 'candidate').map(([, i]) => i);
  const logit = (p: number) => Math.log(Math.max(1e-6, p) / Math.max(1e-6, 1 - p));
  const methods: Record<string, Map<number, number>> = {
    'GBT (classifier.ts trees)': new Map(cand.map((i) => [i, d.rows[i]!.gbt!])),
    'CNN (patch)': new Map(cand.map((i) => [i, 1 / (1 + Math.exp(-logits.get(i)!))])),
    'GBT + CNN (sum of logits)': new Map(cand.map((i) => [i, 1 / (1 + Math.exp(-(logit(d.rows[i]!.gbt!) + logits.get(i)!)))])),
  };
  const near = (i: number) => d.rows[i]!.landDistanceM! <= 2000;
  console.log(`PFA ${d.pfa}: ${cand.length} candidates (${cand.filter((i) => d.rows[i]!.y).length} on ships), ships inshore ${d.chips.filter((c) => c.inshore).reduce((a, c) => a + c.ships.length, 0)}, offshore ${d.chips.filter((c) => !c.inshore).reduce((a, c) => a + c.ships.length, 0)}`);
  const result: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(methods)) {
    const sub = (f: (i: number) => boolean) => {
      const ii = cand.filter(f);
      return auc(ii.map((i) => s.get(i)!), ii.map((i) => d.rows[i]!.y));
    };
    const aucs = { all: sub(() => true), inshoreChips: sub((i) => d.rows[i]!.inshore), offshoreChips: sub((i) => !d.rows[i]!.inshore), nearShore: sub(near) };
    // One threshold for the best inshore+offshore F1 sum; and the best inshore recall at P ≥ 0.8.
    let best = { t: 0.5, score: -1, pr: objectPr(d, cand, s, 0.5) };
    let r80 = { t: NaN, r: 0, p: 0 };
    // Thresholds at 300 quantiles of the scores (the CNN's and the sum's are not calibrated like the trees').
    const sorted = cand.map((i) => s.get(i)!).sort((p, q) => p - q);
    for (let q = 0; q < 300; q++) {
      const t = sorted[Math.floor((q / 300) * sorted.length)]!;
      const pr = objectPr(d, cand, s, t);
      if (pr.inshore.f1 + pr.offshore.f1 > best.score) best = { t, score: pr.inshore.f1 + pr.offshore.f1, pr };
      if (pr.inshore.p >= 0.8 && pr.inshore.r > r80.r) r80 = { t, r: pr.inshore.r, p: pr.inshore.p };
    }
    console.log(
      `  ${name}: AUC all ${f3(aucs.all)}, inshore chips ${f3(aucs.inshoreChips)}, offshore chips ${f3(aucs.offshoreChips)}, near shore (≤ 2 km) ${f3(aucs.nearShore)}; ` +
        `best threshold ${best.t.toPrecision(3)}: inshore P ${f3(best.pr.inshore.p)} R ${f3(best.pr.inshore.r)}, offshore P ${f3(best.pr.offshore.p)} R ${f3(best.pr.offshore.r)}; ` +
        `inshore R at P ≥ 0.8: ${f3(r80.r)} (P ${f3(r80.p)}, t ${r80.t.toPrecision(3)})`,
    );
    result[name] = { auc: aucs, best: { t: best.t, ...best.pr }, inshoreRecallAtP80: r80 };
  }
  return result;
}

function writeScores(net: CnnWeights, fold: number, cpuS: number, samples: number, epochs: number): void {
  const out: Record<string, unknown> = { fold, cpuS, samples, epochs };
  for (const base of arg('score', arg('data', '/tmp/p4')).split(','))
    if (existsSync(`${base}.f32`)) out[base] = score(net, readPatchData(base), fold);
    else console.log(`${base}: not there, not scored`);
  writeFileSync(arg('out', `/tmp/patchcnn-f${fold}.json`), JSON.stringify(out));
}

/** The candidates' out-of-fold CNN logits of data set `base` from the folds' score files. */
function oofLogits(base: string, files: string[]): Map<number, number> {
  const logits = new Map<number, number>();
  const oofs = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Record<string, { logits: Record<string, number>; usPerCandidate: number }> & { cpuS: number; epochs: number });
  for (const o of oofs) for (const [i, z] of Object.entries(o[base]!.logits)) logits.set(Number(i), z);
  console.log(`training CPU s per fold: ${oofs.map((o) => o.cpuS.toFixed(0)).join(', ')} (${oofs.map((o) => o.epochs).join(', ')} epochs); inference CPU µs per candidate: ${oofs.map((o) => o[base]!.usPerCandidate.toFixed(0)).join(', ')}`);
  return logits;
}

/** Out-of-fold probabilities of the candidate trees (CANDIDATE_GBT, 3 folds by run) on features xOf(k). */
function oofTrees(cand: PatchData['rows'], xOf: (k: number) => number[], featureNames: string[]): number[] {
  const prob = new Array<number>(cand.length).fill(0);
  for (let f = 0; f < 3; f++) {
    const tr = cand.map((_, k) => k).filter((k) => cand[k]!.fold !== f);
    const m = trainGbt(tr.map(xOf), tr.map((k) => cand[k]!.y), null, CANDIDATE_GBT);
    cand.forEach((r, k) => {
      if (r.fold === f) prob[k] = gbtPredict({ ...m, featureNames }, xOf(k));
    });
  }
  return prob;
}

/**
 * Stacking (issue 23 §1): the CNN's out-of-fold logit as an 18th feature of the candidate trees,
 * refitted on the same 3 folds by run as the 17-feature trees (CANDIDATE_GBT), against the
 * 17-feature trees, the plain sum of logits and the CNN alone: precision at fixed recalls per chip
 * kind (candidate-level matches, as fitClassifier.ts --ablate-part). A training row's logit comes
 * from the fold CNN that did not see its fold, as a test row's does; second-order leak: that CNN
 * saw the test fold (as the out-of-fold segmenters do in fitClassifier.ts).
 */
function stack(d: PatchData, logits: Map<number, number>): void {
  const cand = d.rows.filter((r) => r.kind === 'candidate');
  const z = d.rows.flatMap((r, i) => (r.kind === 'candidate' ? [logits.get(i)!] : []));
  if (z.some((v) => v === undefined)) throw new Error('a candidate has no out-of-fold CNN logit');
  const ships = { inshore: 0, offshore: 0 };
  for (const c of d.chips) ships[c.inshore ? 'inshore' : 'offshore'] += c.ships.length;
  const names = [...CANDIDATE_FEATURES, 'cnnLogit'];
  const fit = (xOf: (k: number) => number[], featureNames: string[]) => oofTrees(cand, xOf, featureNames);
  const trees17 = fit((k) => cand[k]!.x!, [...CANDIDATE_FEATURES]);
  const same = trees17.every((p, k) => Math.abs(p - cand[k]!.gbt!) < 1e-9);
  console.log(`${cand.length} candidates (${cand.filter((r) => r.y).length} on ships); ships ${JSON.stringify(ships)}; 17-feature trees refitted ${same ? 'equal' : 'DIFFER from'} patchCnnData's out-of-fold probabilities`);
  // The committed operating point on these out-of-fold probabilities: reproduces fitClassifier.ts's
  // "thresholds away / near shore" line when the candidates are the same.
  const committed = JSON.parse(readFileSync(new URL('../../src/analysis/ship/classifierModel.json', import.meta.url), 'utf8')) as { threshold: number; nearShore: { distanceM: number; threshold: number } };
  for (const kind of ['inshore', 'offshore'] as const) {
    let tp = 0;
    let fp = 0;
    cand.forEach((r, k) => {
      if (r.inshore !== (kind === 'inshore')) return;
      if (trees17[k]! >= (r.landDistanceM! <= committed.nearShore.distanceM ? committed.nearShore.threshold : committed.threshold)) r.y ? tp++ : fp++;
    });
    console.log(`17-feature trees at the committed thresholds (${committed.threshold} / ${committed.nearShore.threshold} near shore), ${kind}: P ${(tp / (tp + fp)).toFixed(3)} R ${(tp / ships[kind]).toFixed(3)}`);
  }
  const trees18 = fit((k) => [...cand[k]!.x!, z[k]!], names);
  const logit = (p: number) => Math.log(Math.max(1e-6, p) / Math.max(1e-6, 1 - p));
  const methods: Array<[string, ArrayLike<number>]> = [
    ['17 features (committed trees)', trees17],
    ['18 features: + CNN out-of-fold logit (stacked)', trees18],
    ['17-feature trees + CNN (sum of logits)', trees17.map((p, k) => logit(p) + z[k]!)],
    ['CNN alone', z],
    // The CNN only where it would run: candidates within the committed near-shore distance of land get the stacked
    // trees' probability, the others the 17-feature trees' (both are tree probabilities).
    [`stacked within ${committed.nearShore.distanceM} m of land, 17 features elsewhere`, trees17.map((p, k) => (cand[k]!.landDistanceM! <= committed.nearShore.distanceM ? trees18[k]! : p))],
  ];
  const nearCount = cand.filter((r) => r.landDistanceM! <= committed.nearShore.distanceM);
  console.log(`candidates within ${committed.nearShore.distanceM} m of land: ${nearCount.length} of ${cand.length} (inshore chips ${nearCount.filter((r) => r.inshore).length}, offshore chips ${nearCount.filter((r) => !r.inshore).length}; ${d.chips.length} chips)`);
  const recalls = { inshore: [0.45, 0.48, 0.55, 0.6, 0.7], offshore: [0.91, 0.95] };
  for (const kind of ['inshore', 'offshore'] as const)
    for (const [name, prob] of methods)
      console.log(`stack, ${kind}, ${name}: precision at recall ${recalls[kind].map((r) => `${r}: ${precisionAtRecall(cand, prob, kind === 'inshore', ships[kind], r)?.toFixed(3) ?? 'unreached'}`).join(', ')}`);
  // Best single-threshold candidate-level F1 over both kinds (the operating point aside).
  for (const [name, prob] of methods) {
    const order = cand.map((_, k) => k).sort((a, b) => prob[b]! - prob[a]!);
    let tp = 0;
    let best = 0;
    order.forEach((k, j) => {
      tp += cand[k]!.y;
      const p = tp / (j + 1);
      const r = tp / (ships.inshore + ships.offshore);
      best = Math.max(best, p + r ? (2 * p * r) / (p + r) : 0);
    });
    console.log(`stack, ${name}: best single-threshold F1 (both kinds) ${best.toFixed(3)}`);
  }
}

function fromJson(j: ReturnType<typeof toJson>): CnnWeights {
  return { channels: j.channels, size: j.size, conv: j.conv.map((c) => ({ w: Float32Array.from(c.w), b: Float32Array.from(c.b) })), dense: { w: Float32Array.from(j.dense.w), b: Float32Array.from(j.dense.b) } };
}

const mode = process.argv[2];
if (mode === 'train') {
  const d = readPatchData(arg('data', '/tmp/p4'));
  const foldArg = arg('fold', '0');
  const fold = foldArg === 'all' ? 'all' : Number(foldArg);
  const epochs = Number(arg('epochs', '8'));
  const negKeep = Number(arg('neg-keep', '1'));
  const { net, cpuS, samples } = train(d, fold, epochs, negKeep);
  console.log(`trained on ${samples} patches, ${epochs} epochs, ${cpuS.toFixed(0)} CPU s; ${(forwardMacs(net) / 1e6).toFixed(3)} M MAC per patch`);
  writeFileSync(arg('weights', `/tmp/patchcnn-w${fold}.json`), `${JSON.stringify({ ...toJson(net), fitted: { by: 'training/ship/patchCnn.ts', data: 'SSDD development chips only', fold, samples, epochs, negKeep, cpuS: Math.round(cpuS) } })}\n`);
  if (fold !== 'all') writeScores(net, fold, cpuS, samples, epochs);
} else if (mode === 'score') {
  // Held-out logits from saved fold weights (e.g. for a data set written after the training).
  const j = JSON.parse(readFileSync(arg('weights', ''), 'utf8')) as ReturnType<typeof toJson> & { fitted: { fold: number; cpuS: number; samples: number; epochs: number } };
  writeScores(fromJson(j), j.fitted.fold, j.fitted.cpuS, j.fitted.samples, j.fitted.epochs);
} else if (mode === 'eval') {
  const base = arg('data', '/tmp/p4');
  evaluate(readPatchData(base), oofLogits(base, arg('oof', '').split(',')));
} else if (mode === 'stack') {
  const base = arg('data', '/tmp/p4');
  stack(readPatchData(base), oofLogits(base, arg('oof', '').split(',')));
} else console.log('usage: patchCnn.ts train|score|eval|stack …');
