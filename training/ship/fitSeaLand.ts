/**
 * Fits the sea/land segmenter (src/analysis/ship/seaLand.ts → seaLandModel.json) on the SSDD
 * DEVELOPMENT chips only (eval/shipChips.ts split; validation runs are never read for the fit).
 * Labels: the SL-SSDD masks, a cell is land when most of its pixels are. The land threshold (for
 * use as a land mask) is the lowest at which at most 10 % of the development inshore ships'
 * box centres fall on cells called land, out of fold (3 folds by run): a mask that swallows
 * harbour ships costs more than the land it misses (the best-IoU threshold is recorded too).
 * The candidate classifier uses the probabilities, not this threshold. The committed trees are
 * fitted on all development rows. `--validation` scores
 * the committed model on the validation chips instead (no fit, nothing written).
 *
 *   node --import tsx training/ship/fitSeaLand.ts [--dry] | --validation
 */
import { writeFileSync } from 'node:fs';
import { loadSsddChips } from '../../eval/shipChips.ts';
import { gbtPredict, type GbtModel } from '../../src/analysis/oilslick/gbt.ts';
import { SEA_LAND_FEATURE_COUNT, seaLandFeaturesAt, seaLandModel, type SeaLandModel } from '../../src/analysis/ship/seaLand.ts';
import { SEA_LAND_GBT, chipCells, fitSeaLand, foldsByRun, runOf, seaLandRows, type ChipCells } from './seaLandData.ts';

const t0 = process.cpuUsage();
const cpu = () => {
  const u = process.cpuUsage(t0);
  return `${((u.user + u.system) / 1e6).toFixed(0)} CPU s`;
};
const f3 = (v: number) => v.toFixed(3);

/** Cell probabilities of a chip. */
function predict(c: ChipCells, model: GbtModel): Float32Array {
  const m = c.features.rows * c.features.cols;
  const p = new Float32Array(m).fill(Number.NaN);
  const x = new Array<number>(SEA_LAND_FEATURE_COUNT);
  for (let k = 0; k < m; k++) if (c.features.valid[k]) p[k] = gbtPredict(model, seaLandFeaturesAt(c.features, k, x));
  return p;
}

/** IoU of land (inshore chips), share of sea cells called land (all chips), ship centres on called land. */
function score(cells: ChipCells[], probs: Float32Array[], t: number) {
  let inter = 0;
  let union = 0;
  let sea = 0;
  let seaAsLand = 0;
  let ships = 0;
  let shipsOnLand = 0;
  let inshoreShips = 0;
  let inshoreShipsOnLand = 0;
  cells.forEach((c, i) => {
    const p = probs[i]!;
    for (let k = 0; k < p.length; k++) {
      if (Number.isNaN(p[k]!)) continue;
      const l = c.landShare[k]! >= 0.5;
      const called = p[k]! >= t;
      if (c.chip.inshore) {
        if (l && called) inter++;
        if (l || called) union++;
      }
      if (!l) {
        sea++;
        if (called) seaAsLand++;
      }
    }
    for (const s of c.chip.ships) {
      const k = Math.floor(s.row / c.features.cellRows) * c.features.cols + Math.floor(s.col / c.features.cellCols);
      const on = p[k]! >= t;
      ships++;
      if (on) shipsOnLand++;
      if (c.chip.inshore) {
        inshoreShips++;
        if (on) inshoreShipsOnLand++;
      }
    }
  });
  return { iou: union ? inter / union : 1, seaAsLand: seaAsLand / sea, shipsOnLand, ships, inshoreShipsOnLand, inshoreShips };
}
const show = (s: ReturnType<typeof score>) =>
  `IoU (inshore chips) ${f3(s.iou)}, sea cells called land ${f3(s.seaAsLand)}, ship centres on called land ${s.shipsOnLand}/${s.ships} (inshore ${s.inshoreShipsOnLand}/${s.inshoreShips})`;

if (process.argv.includes('--validation')) {
  const model = seaLandModel();
  const cells = loadSsddChips().filter((c) => c.split === 'validation').map(chipCells);
  const probs = cells.map((c) => predict(c, model.model));
  console.log(`validation, ${cells.length} chips, committed threshold ${model.threshold}: ${show(score(cells, probs, model.threshold))}; ${cpu()}`);
} else {
  const chips = loadSsddChips().filter((c) => c.split === 'dev');
  const cells = chips.map(chipCells);
  const rows = seaLandRows(cells);
  const foldOf = foldsByRun(chips);
  console.log(`${chips.length} development chips, ${rows.length} rows (${rows.filter((r) => r.y).length} land); ${cpu()}`);
  const oof: Float32Array[] = cells.map(() => new Float32Array(0));
  for (let f = 0; f < 3; f++) {
    const model = fitSeaLand(rows.filter((r) => foldOf.get(r.run) !== f));
    cells.forEach((c, i) => {
      if (foldOf.get(runOf(c.chip)) === f) oof[i] = predict(c, model);
    });
    console.log(`fold ${f}; ${cpu()}`);
  }
  let best = { t: 0.5, iou: -1 };
  let chosen = Number.NaN;
  for (let i = 4; i <= 19; i++) {
    const t = i / 20;
    const s = score(cells, oof, t);
    console.log(`  t ${t.toFixed(2)}: ${show(s)}`);
    if (s.iou > best.iou) best = { t, iou: s.iou };
    if (Number.isNaN(chosen) && s.inshoreShipsOnLand <= 0.1 * s.inshoreShips) chosen = t;
  }
  const oofScore = score(cells, oof, chosen);
  console.log(`threshold ${chosen} (best IoU at ${best.t}: ${f3(best.iou)}), out-of-fold: ${show(oofScore)}`);
  const model = fitSeaLand(rows);
  const out: SeaLandModel = {
    model,
    threshold: chosen,
    fitted: {
      threshold: 'lowest with ≤ 10 % of the development inshore ship centres on called land, out of fold',
      bestIou: { threshold: best.t, iou: +f3(best.iou) },
      by: 'training/ship/fitSeaLand.ts',
      data: `SSDD development chips only (${chips.length} chips; validation runs never read), σ0 ∝ (grey + ½)², assumed 3 m pixels, labels = SL-SSDD masks (cell land when ≥ half its pixels are)`,
      rows: rows.length,
      land: rows.filter((r) => r.y).length,
      gbt: SEA_LAND_GBT,
      outOfFold: { iou: +f3(oofScore.iou), seaCellsCalledLand: +f3(oofScore.seaAsLand), shipCentresOnLand: `${oofScore.shipsOnLand}/${oofScore.ships}` },
    },
  };
  if (!process.argv.includes('--dry')) {
    writeFileSync(new URL('../../src/analysis/ship/seaLandModel.json', import.meta.url), `${JSON.stringify(out)}\n`);
    console.log(`wrote src/analysis/ship/seaLandModel.json; ${cpu()}`);
  }
}
