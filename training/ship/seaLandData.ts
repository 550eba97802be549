/**
 * Rows and fits of the sea/land segmenter (src/analysis/ship/seaLand.ts), shared by
 * training/ship/fitSeaLand.ts (the committed model) and training/ship/fitClassifier.ts (its
 * out-of-fold land fields, so the candidate trees learn from land features of chips the
 * segmenter never saw). SSDD chips at the eval's assumed pixel size; a cell is land when most
 * of its pixels are land in the chip's SL-SSDD mask.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SSDD_DIR, SSDD_PIXEL_M, decodeLuma, greyAmplitudeToSigma0, readSsddLand, type SsddChip } from '../../eval/shipChips.ts';
import { SEA_LAND_FEATURES, SEA_LAND_FEATURE_COUNT, candidateLandFeatures, seaLandFeatures, seaLandFeaturesAt, type SeaLandFeatures, type SeaLandField } from '../../src/analysis/ship/seaLand.ts';
import { surroundGrowPx } from '../../src/analysis/ship/classifier.ts';
import { mulberry32 } from '../../src/prng.ts';
import { trainGbt, type GbtOptions } from '../oilslick/gbtTrain.ts';
import type { GbtModel } from '../../src/analysis/oilslick/gbt.ts';

export const SEA_LAND_GBT: Partial<GbtOptions> = { trees: 100, maxDepth: 4, learningRate: 0.1, minChildWeight: 5, subsample: 0.7, seed: 23 };
export const SPACING = { range: SSDD_PIXEL_M, azimuth: SSDD_PIXEL_M };
export const runOf = (c: SsddChip) => Math.floor((c.number - 1) / 20);

export interface ChipCells {
  chip: SsddChip;
  features: SeaLandFeatures;
  /** Land share of each cell's pixels (mask). */
  landShare: Float32Array;
}

export function chipCells(chip: SsddChip): ChipCells {
  const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
  const sigma0 = greyAmplitudeToSigma0(img.grey);
  const target = new Uint8Array(chip.width * chip.height).fill(1);
  const features = seaLandFeatures(sigma0, target, chip.width, chip.height, SPACING);
  const landShare = new Float32Array(features.rows * features.cols);
  if (chip.inshore) {
    const land = readSsddLand(chip);
    const count = new Float32Array(landShare.length);
    for (let r = 0; r < chip.height; r++)
      for (let c = 0; c < chip.width; c++) {
        const k = Math.floor(r / features.cellRows) * features.cols + Math.floor(c / features.cellCols);
        count[k]!++;
        landShare[k]! += land[r * chip.width + c]!;
      }
    for (let k = 0; k < landShare.length; k++) landShare[k] = count[k]! > 0 ? landShare[k]! / count[k]! : 0;
  }
  return { chip, features, landShare };
}

export interface SeaLandRow {
  run: number;
  x: number[];
  y: number;
}

/** Training rows: every other cell of inshore chips, 1 in 30 of offshore ones (open sea is easy and plentiful). */
export function seaLandRows(cells: ChipCells[], seed = 23): SeaLandRow[] {
  const rand = mulberry32(seed);
  const rows: SeaLandRow[] = [];
  for (const c of cells) {
    const keep = c.chip.inshore ? 0.5 : 1 / 30;
    const m = c.features.rows * c.features.cols;
    for (let k = 0; k < m; k++) {
      if (!c.features.valid[k] || rand() >= keep) continue;
      rows.push({ run: runOf(c.chip), x: seaLandFeaturesAt(c.features, k), y: c.landShare[k]! >= 0.5 ? 1 : 0 });
    }
  }
  return rows;
}

export function fitSeaLand(rows: SeaLandRow[]): GbtModel & { featureNames: string[] } {
  const model = trainGbt(rows.map((r) => r.x), rows.map((r) => r.y), null, SEA_LAND_GBT);
  return { ...model, featureNames: [...SEA_LAND_FEATURES] };
}

/** Folds by run: run index (among `runs`, sorted) mod 3 — the classifier fit's folds. */
export function foldsByRun(chips: SsddChip[]): Map<number, number> {
  const runs = [...new Set(chips.map(runOf))].sort((a, b) => a - b);
  return new Map(runs.map((r, i) => [r, i % 3]));
}

/**
 * The four land features of a chip candidate (eval/shipChips.ts detectOnChip's detection) from
 * a land field, as the detector's classifier computes them: its pixels' box grown by surroundGrowPx.
 */
export function chipCandidateLandFeatures(
  d: { pixels: { rows: ArrayLike<number>; cols: ArrayLike<number> }; peakRow: number; peakCol: number },
  land: SeaLandField,
): [number, number, number, number] {
  const { rows, cols } = d.pixels;
  const box = { rowMin: Infinity, rowMax: -Infinity, colMin: Infinity, colMax: -Infinity };
  for (let j = 0; j < rows.length; j++) {
    box.rowMin = Math.min(box.rowMin, rows[j]!);
    box.rowMax = Math.max(box.rowMax, rows[j]!);
    box.colMin = Math.min(box.colMin, cols[j]!);
    box.colMax = Math.max(box.colMax, cols[j]!);
  }
  return candidateLandFeatures(land, d.peakRow, d.peakCol, box, surroundGrowPx(box.rowMax - box.rowMin + 1, box.colMax - box.colMin + 1));
}

/** The SSDD ship outlines (labels.json segmentations, chip pixels) of each chip file. */
export function ssddOutlines(): (file: string) => number[][][] {
  const labels = JSON.parse(readFileSync(path.join(SSDD_DIR, 'labels.json'), 'utf8')) as {
    images: Array<{ id: number; file_name: string }>;
    annotations: Array<{ image_id: number; segmentation: number[][] }>;
  };
  const idOf = new Map(labels.images.map((im) => [im.file_name, im.id]));
  const polysOf = new Map<number, number[][][]>();
  for (const a of labels.annotations) polysOf.set(a.image_id, [...(polysOf.get(a.image_id) ?? []), a.segmentation]);
  return (file) => polysOf.get(idOf.get(file)!) ?? [];
}

export { SEA_LAND_FEATURE_COUNT };
