/**
 * Issue 23 §1, near-shore accuracy: diagnosis and experiments on the candidates cached by
 * inshoreRows.ts (SSDD development chips only; out of fold, 3 folds by run as in
 * fitClassifier.ts). Prints: the committed recipe's out-of-fold figures (candidate level, as
 * fitClassifier.ts, and object level with the eval's matching re-run per chip on the kept
 * candidates); what the inshore false positives are (a piece of a ship another candidate
 * matches, land or quay by the chip's hand-drawn mask, clutter) and the out-of-fold probability
 * of the inshore ships' candidates the trees drop; then the variants (near-land trees, the axis
 * features, merging pieces of one ship; --only part: the part's texture and surroundings,
 * partFeatures.ts; --only pix: the out-of-fold per-pixel probability over the part), each with its
 * own thresholds chosen out of fold (--seeds 23,1,2: the trees' seeds of those two).
 *
 *   node --import tsx training/ship/inshoreExperiment.ts --rows /tmp/inshore-rows.json [--only part|pix] [--seeds 23,1,2] [--subsets 0,1]
 */
import { readFileSync } from 'node:fs';
import { MATCH_DISTANCE_M, SSDD_PIXEL_M, loadSsddChips, type SsddChip } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import { AXIS_FEATURE_COUNT, CANDIDATE_FEATURES } from '../../src/analysis/ship/classifier.ts';
import { PART_FEATURES } from './partFeatures.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { trainGbt, type GbtOptions } from '../oilslick/gbtTrain.ts';
import { CANDIDATE_GBT, precisionAtRecall } from './chipCandidates.ts';
import { foldsByRun } from './seaLandData.ts';
import type { InshoreRow } from './inshoreRows.ts';
import { arg } from './args.ts';

const rows = JSON.parse(readFileSync(arg('rows', '/tmp/inshore-rows.json'), 'utf8')) as InshoreRow[];
for (const r of rows) {
  r.x = r.x.map((v) => (v === null ? Number.NaN : v));
  r.axis = r.axis.map((v) => (v === null ? Number.NaN : v));
  r.part = (r.part ?? []).map((v) => (v === null ? Number.NaN : v));
}
const chips = loadSsddChips().filter((c) => c.split === 'dev');
const chipOf = new Map<number, SsddChip>(chips.map((c) => [c.number, c]));
const foldOf = foldsByRun(chips);
const ships = { inshore: 0, offshore: 0 };
for (const c of chips) ships[c.inshore ? 'inshore' : 'offshore'] += c.ships.length;
const NEAR_SHORE_M = 2000;
const DIST = CANDIDATE_FEATURES.indexOf('landDistanceM');
const near = rows.map((r) => r.x[DIST]! <= NEAR_SHORE_M);
const f3 = (v: number) => v.toFixed(3);
const t0 = process.cpuUsage();
const cpu = () => `${((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1e6).toFixed(0)} CPU s`;
console.log(`${rows.length} candidates (${near.filter(Boolean).length} near shore), ships ${JSON.stringify(ships)}`);

/** Out-of-fold probabilities of trees fitted on the rows `use` selects (all by default), predicted for the rows `use` selects. */
function oof(xOf: (r: InshoreRow) => number[], gbt: Partial<GbtOptions>, use: (i: number) => boolean = () => true): Float64Array {
  const p = new Float64Array(rows.length).fill(Number.NaN);
  for (let f = 0; f < 3; f++) {
    const train = rows.filter((r, i) => use(i) && foldOf.get(r.run) !== f);
    const m = trainGbt(train.map(xOf), train.map((r) => r.y), null, gbt);
    const names = m.featureNames;
    rows.forEach((r, i) => {
      if (use(i) && foldOf.get(r.run) === f) p[i] = gbtPredict({ ...m, featureNames: names }, xOf(r));
    });
  }
  return p;
}

function prCand(prob: ArrayLike<number>, th: (i: number) => number, inshore: boolean) {
  let tp = 0;
  let fp = 0;
  rows.forEach((r, i) => {
    if (r.inshore !== inshore) return;
    if (prob[i]! >= th(i)) r.y ? tp++ : fp++;
  });
  const n = inshore ? ships.inshore : ships.offshore;
  const p = tp + fp ? tp / (tp + fp) : 1;
  const rc = tp / n;
  return { p, r: rc, f1: p + rc ? (2 * p * rc) / (p + rc) : 0, tp, fp };
}

const grid: number[] = [];
for (let t = 0.05; t < 0.96; t += 0.01) grid.push(Math.round(t * 100) / 100);
/** The fit's rule: a threshold away from land and one near shore, for the best sum of inshore and offshore F1 (candidate level). */
function pickPair(prob: ArrayLike<number>) {
  let best = { far: 0.5, near: 0.5, score: -1 };
  for (const far of grid)
    for (const nr of grid) {
      const th = (i: number) => (near[i] ? nr : far);
      const s = prCand(prob, th, true).f1 + prCand(prob, th, false).f1;
      if (s > best.score) best = { far, near: nr, score: s };
    }
  return best;
}

/** Object level: per chip, the kept candidates (optionally merged) matched to its ships by the eval's rule. */
function prObject(prob: ArrayLike<number>, th: (i: number) => number, inshore: boolean, merge = false) {
  const byChip = new Map<number, number[]>();
  rows.forEach((r, i) => {
    if (r.inshore === inshore && prob[i]! >= th(i)) {
      const a = byChip.get(r.chip) ?? [];
      a.push(i);
      byChip.set(r.chip, a);
    }
  });
  let tp = 0;
  let fp = 0;
  for (const [chipNo, kept] of byChip) {
    const chip = chipOf.get(chipNo)!;
    const dets = merge ? mergePieces(kept, prob) : kept.map((i) => ({ row: rows[i]!.centroidRow, col: rows[i]!.centroidCol }));
    const truth = chip.ships.map((s, id) => ({ ...s, certain: true, id }));
    const s = scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (d, t) => Math.hypot(dets[d]!.row - t.row, dets[d]!.col - t.col));
    tp += s.truePositives;
    fp += s.falsePositives;
  }
  const n = inshore ? ships.inshore : ships.offshore;
  const p = tp + fp ? tp / (tp + fp) : 1;
  const rc = tp / n;
  return { p, r: rc, f1: p + rc ? (2 * p * rc) / (p + rc) : 0, tp, fp };
}

/**
 * Pieces of one hull: strongest first, a kept candidate whose centroid lies on another's axis
 * (across ≤ the wider's half width + 3 px) within the two half lengths + `gapPx` along it, with
 * axes within 20°, joins it (pixel-weighted centroid).
 */
let GAP_PX = 10;
function mergePieces(kept: number[], prob: ArrayLike<number>): Array<{ row: number; col: number }> {
  const order = [...kept].sort((a, b) => prob[b]! - prob[a]!);
  const groups: Array<{ lead: InshoreRow; row: number; col: number; n: number }> = [];
  for (const i of order) {
    const r = rows[i]!;
    const g = groups.find((g) => {
      const a = g.lead;
      const th = (a.orientationDeg * Math.PI) / 180;
      const dr = r.centroidRow - a.centroidRow;
      const dc = r.centroidCol - a.centroidCol;
      const along = Math.abs(dr * Math.cos(th) + dc * Math.sin(th));
      const across = Math.abs(-dr * Math.sin(th) + dc * Math.cos(th));
      const dTheta = Math.abs(((a.orientationDeg - r.orientationDeg + 270) % 180) - 90);
      return dTheta <= 20 && across <= Math.max(a.widthPx, r.widthPx) / 2 + 3 && along <= a.lengthPx / 2 + r.lengthPx / 2 + GAP_PX;
    });
    if (g) {
      g.row = (g.row * g.n + r.centroidRow * r.pixels) / (g.n + r.pixels);
      g.col = (g.col * g.n + r.centroidCol * r.pixels) / (g.n + r.pixels);
      g.n += r.pixels;
    } else groups.push({ lead: r, row: r.centroidRow, col: r.centroidCol, n: r.pixels });
  }
  return groups;
}

function report(name: string, prob: ArrayLike<number>, merge = false) {
  const pr = pickPair(prob);
  const th = (i: number) => (near[i] ? pr.near : pr.far);
  const ci = prCand(prob, th, true);
  const co = prCand(prob, th, false);
  const oi = prObject(prob, th, true, merge);
  const oo = prObject(prob, th, false, merge);
  const at = (inshore: boolean, rc: number) => precisionAtRecall(rows, prob, inshore, inshore ? ships.inshore : ships.offshore, rc)?.toFixed(3) ?? '–';
  console.log(
    `| ${name} | ${pr.far} / ${pr.near} | ${f3(ci.p)} / ${f3(ci.r)} / ${f3(ci.f1)} | ${f3(co.p)} / ${f3(co.r)} / ${f3(co.f1)} | ${f3(oi.p)} / ${f3(oi.r)} / ${f3(oi.f1)} | ${f3(oo.p)} / ${f3(oo.r)} / ${f3(oo.f1)} | ` +
      `${[0.45, 0.48, 0.55, 0.6].map((r) => at(true, r)).join(' ')} | ${[0.91, 0.95].map((r) => at(false, r)).join(' ')} |`,
  );
  return { pr, th };
}

console.log('| variant | thresholds far / near | cand. inshore P / R / F1 | cand. offshore P / R / F1 | object inshore P / R / F1 | object offshore P / R / F1 | inshore P at R 0.45 0.48 0.55 0.60 | offshore P at R 0.91 0.95 |');
const base = oof((r) => r.x, CANDIDATE_GBT);
const { th: baseTh } = report('17 features (committed recipe)', base);
console.log(cpu());

// Diagnosis at the committed recipe's operating point.
{
  const kinds = { piece: 0, land: 0, clutter: 0 };
  const pieceOfMatched = { yes: 0, no: 0 };
  const matchedChipShip = new Set<string>();
  rows.forEach((r, i) => {
    if (r.y && base[i]! >= baseTh(i)) matchedChipShip.add(`${r.chip}`);
  });
  rows.forEach((r, i) => {
    if (!r.inshore || r.y || base[i]! < baseTh(i)) return;
    if (r.nearestShipPx <= Math.max(r.nearestShipSizePx / 2, 8)) {
      kinds.piece++;
      // Is another kept candidate of that chip within the match distance of the same ship? (a duplicate)
      const dup = rows.some((o, j) => j !== i && o.chip === r.chip && o.y && base[j]! >= baseTh(j) && Math.hypot(o.centroidRow - r.centroidRow, o.centroidCol - r.centroidCol) <= r.nearestShipSizePx);
      dup ? pieceOfMatched.yes++ : pieceOfMatched.no++;
    } else if (r.refLandShare > 0) kinds.land++;
    else kinds.clutter++;
  });
  console.log(`inshore false positives: within half a ship box of a ship centre ${kinds.piece} (another kept candidate matches that ship: ${pieceOfMatched.yes}), on or within 3 px of hand-drawn land ${kinds.land}, clutter on water ${kinds.clutter}`);
  const landShares = [0, 0.25, 0.5, 0.75, 1.01];
  const fpLand = rows.filter((r, i) => r.inshore && !r.y && base[i]! >= baseTh(i) && !(r.nearestShipPx <= Math.max(r.nearestShipSizePx / 2, 8)));
  console.log(`  their share of pixels on/near hand-drawn land: ${landShares.slice(0, -1).map((a, k) => `[${a}, ${landShares[k + 1]}) ${fpLand.filter((r) => r.refLandShare >= a && r.refLandShare < landShares[k + 1]!).length}`).join(', ')}`);
  const missed = rows.map((r, i) => [r, i] as const).filter(([r, i]) => r.inshore && r.y && base[i]! < baseTh(i));
  const bins = [0, 0.02, 0.05, 0.1, 0.2, 0.3, 1];
  console.log(`inshore ship candidates dropped (${missed.length}; kept ${rows.filter((r, i) => r.inshore && r.y && base[i]! >= baseTh(i)).length}): probability ${bins.slice(0, -1).map((a, k) => `[${a}, ${bins[k + 1]}) ${missed.filter(([, i]) => base[i]! >= a && base[i]! < bins[k + 1]!).length}`).join(', ')}; their land at peak ≥ 0.5: ${missed.filter(([r]) => r.x[CANDIDATE_FEATURES.indexOf('landAtPeak')]! >= 0.5).length}, on/near hand-drawn land: ${missed.filter(([r]) => r.refLandShare > 0).length}`);
}

const which = arg('only', 'all');
if (which === 'all' || which.includes('merge')) {
  for (const gap of [0, 10, 25]) {
    GAP_PX = gap;
    report(`17 features, merged pieces (gap ${gap} px)`, base, true);
  }
}
if (which === 'all' || which.includes('axis')) {
  const ax = oof((r) => [...r.x, ...r.axis], CANDIDATE_GBT);
  report(`+ ${AXIS_FEATURE_COUNT} axis features`, ax);
  const nearAx = oof((r) => [...r.x, ...r.axis], CANDIDATE_GBT, (i) => near[i]!);
  report('axis features, trees near shore only (17 elsewhere)', Float64Array.from(base, (v, i) => (near[i] ? nearAx[i]! : v)));
  console.log(cpu());
}
if (which === 'all' || which.includes('nearmodel')) {
  for (const [label, g] of [
    ['150 × depth 3', CANDIDATE_GBT],
    ['300 × depth 4', { ...CANDIDATE_GBT, trees: 300, maxDepth: 4, learningRate: 0.05 }],
  ] as const) {
    const nearP = oof((r) => r.x, g, (i) => near[i]!);
    report(`near-land trees (${label}) near shore, committed elsewhere`, Float64Array.from(base, (v, i) => (near[i] ? nearP[i]! : v)));
  }
  console.log(cpu());
}
if (which.includes('axis6')) {
  // The six intensity features only (the four land ones read the land field, which the
  // detector takes from the committed segmenter and this fit from the out-of-fold ones).
  const six = (r: InshoreRow) => [...r.x, ...r.axis.slice(0, 6)];
  report('+ 6 axis intensity features', oof(six, CANDIDATE_GBT));
  for (const seed of [1, 2]) {
    report(`17 features, seed ${seed}`, oof((r) => r.x, { ...CANDIDATE_GBT, seed }));
    report(`+ 6 axis intensity features, seed ${seed}`, oof(six, { ...CANDIDATE_GBT, seed }));
    report(`+ 10 axis features, seed ${seed}`, oof((r) => [...r.x, ...r.axis], { ...CANDIDATE_GBT, seed }));
  }
  console.log(cpu());
}
if (which.includes('ends')) {
  // Only the end strips (continuation along the axis) and their land: the side strips encode
  // "bright on both sides", which ships moored side by side share with a chunk of a wide pier.
  const ends = (r: InshoreRow) => [...r.x, ...r.axis.slice(0, 4), ...r.axis.slice(6, 8)];
  const endsI = (r: InshoreRow) => [...r.x, ...r.axis.slice(0, 4)];
  for (const seed of [23, 1, 2]) {
    report(`+ 6 end features (4 intensity, 2 land), seed ${seed}`, oof(ends, { ...CANDIDATE_GBT, seed }));
    report(`+ 4 end intensity features, seed ${seed}`, oof(endsI, { ...CANDIDATE_GBT, seed }));
  }
  console.log(cpu());
}
if (which.includes('cross')) {
  // The twelve (with the two strips across the axis reaching as far as the end strips), and the
  // ends with the cross strips only.
  const sel = (r: InshoreRow) => [...r.x, ...r.axis.slice(0, 4), ...r.axis.slice(6, 8), ...r.axis.slice(10, 12)];
  for (const seed of [23, 1, 2]) {
    report(`+ 12 axis features, seed ${seed}`, oof((r) => [...r.x, ...r.axis], { ...CANDIDATE_GBT, seed }));
    report(`+ 6 end + 2 cross features, seed ${seed}`, oof(sel, { ...CANDIDATE_GBT, seed }));
  }
  console.log(cpu());
}
if (which.includes('part')) {
  // Issue 23 §1, second session: the part's own texture and its pixel-scale surroundings
  // (partFeatures.ts) on top of the 29 before it (17 + 12 axis), and subsets of them; the first three
  // (the part's texture) are committed since (classifier.ts partTextureFeatures).
  const committed = (r: InshoreRow) => [...r.x, ...r.axis];
  const subsets: Array<[string, number[]]> = [
    ['+ 12 part features', PART_FEATURES.map((_, k) => k)],
    ['+ 3 part texture (cv, core, top/median)', [0, 1, 2]],
    ['+ 2 edge', [3, 4]],
    ['+ 3 sectors', [5, 6, 7]],
    ['+ 4 rings', [8, 9, 10, 11]],
    ['+ edge, sectors, rings (9)', [3, 4, 5, 6, 7, 8, 9, 10, 11]],
    ['+ texture and edge (5)', [0, 1, 2, 3, 4]],
    ['+ texture and sectors (6)', [0, 1, 2, 5, 6, 7]],
  ];
  const only = arg('subsets', '');
  for (const seed of (arg('seeds', '23,1,2')).split(',').map(Number)) {
    report(`29 before the texture, seed ${seed}`, oof(committed, { ...CANDIDATE_GBT, seed }));
    for (const [name, ks] of subsets) {
      if (only && !only.split(',').includes(String(subsets.findIndex(([n]) => n === name)))) continue;
      report(`${name}, seed ${seed}`, oof((r) => [...committed(r), ...ks.map((k) => r.part[k]!)], { ...CANDIDATE_GBT, seed }));
    }
    console.log(cpu());
  }
}
if (which.includes('pix')) {
  // The out-of-fold per-pixel ship probability over the part (rows written with
  // inshoreRows.ts --pixel-models, oofPixel.ts) on top of the committed 32 (17 + 12 axis + 3 texture).
  if (!rows.every((r) => r.pix)) throw new Error('--only pix needs rows written with --pixel-models');
  const committed = (r: InshoreRow) => [...r.x, ...r.axis, ...r.part.slice(0, 3)];
  for (const seed of arg('seeds', '23,1,2').split(',').map(Number)) {
    report(`committed 32, seed ${seed}`, oof(committed, { ...CANDIDATE_GBT, seed }));
    report(`+ 3 pixel-probability features, seed ${seed}`, oof((r) => [...committed(r), ...r.pix!], { ...CANDIDATE_GBT, seed }));
    console.log(cpu());
  }
}
