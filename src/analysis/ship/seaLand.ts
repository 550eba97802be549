// Scene sea/land segmenter of the ship candidate stage (issue 23 §1): the probability that a
// patch of the image is land (quays, piers, breakwaters, coastal towns), learnt from the SSDD
// sea/land masks so the candidate classifier can refuse bright land clutter without a coastline.
// The image is cut into cells of about CELL_M metres; per cell the mean σ0 and its speckle CV,
// then box statistics of the cell means at 60 / 140 / 300 / 620 m (mean level, spread of the
// cells in dB, share of bright and of dark cells), all relative to the tile's dark level (the
// 10th percentile of cell means), so they do not depend on the image's calibration and the
// windows are in metres (3 m chips and 10 m Sentinel-1 tiles alike). Memory: ~17 float planes
// of the cell grid (cells of 2 × 2 px at 10 m: ~17 B per image pixel). The trees are
// ../oilslick/gbt.ts's, fitted by training/ship/fitSeaLand.ts and stored in seaLandModel.json.
// Pure, on typed arrays; imports ../oilslick/gbt.ts, ../common/committedModel.ts and
// ../../raster/boxMean.ts.

import { committedModel } from '../common/committedModel.ts';
import { gbtPredict, type GbtModel } from '../oilslick/gbt.ts';
import { BoxScratch, boxMean } from '../../raster/boxMean.ts';

/** Cell size (m) along each axis. */
export const CELL_M = 20;
/** Radii (cells) of the box statistics: windows of 3, 7, 15 and 31 cells (60 … 620 m). */
const RADII = [1, 3, 7, 15] as const;
/** A cell is bright / dark at these levels over the tile's dark level (dB). */
const BRIGHT_DB = 9;
const DARK_DB = 3;

export const SEA_LAND_FEATURES = [
  'cellDb',
  'cellCv',
  'mean60Db',
  'mean140Db',
  'mean300Db',
  'mean620Db',
  'spread60Db',
  'spread140Db',
  'spread300Db',
  'bright140',
  'bright300',
  'bright620',
  'dark140',
  'dark300',
  'dark620',
  'darkLevelDb',
] as const;
export const SEA_LAND_FEATURE_COUNT = SEA_LAND_FEATURES.length;

export interface SeaLandGrid {
  /** Pixels per cell along rows (azimuth) and columns (range). */
  cellRows: number;
  cellCols: number;
  rows: number;
  cols: number;
  /** 1 where the cell holds a target pixel. */
  valid: Uint8Array;
}

export interface SeaLandFeatures extends SeaLandGrid {
  /** Feature planes of the cell grid, plane k at [k·n, (k+1)·n) (n = rows × cols). */
  planes: Float32Array;
}

export interface SeaLandField extends SeaLandGrid {
  /** Land probability per cell (NaN where the cell holds no target pixel). */
  land: Float32Array;
  /** Distance (m) from each cell to the nearest land cell of the tile, capped (withLandDistance). */
  distanceM?: Float32Array;
}

/** Land distances are capped here (m): farther, or no land in the tile. */
export const LAND_DISTANCE_CAP_M = 3000;

export function cellGrid(width: number, height: number, spacing: { range: number; azimuth: number }): Omit<SeaLandGrid, 'valid'> {
  const cellRows = Math.max(1, Math.round(CELL_M / spacing.azimuth));
  const cellCols = Math.max(1, Math.round(CELL_M / spacing.range));
  return { cellRows, cellCols, rows: Math.ceil(height / cellRows), cols: Math.ceil(width / cellCols) };
}

const db = (x: number) => 10 * Math.log10(Math.max(x, 1e-12));

/** The feature planes of every cell (`target` ≠ 0: pixels to look at). */
export function seaLandFeatures(values: Float32Array, target: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }): SeaLandFeatures {
  const g = cellGrid(width, height, spacing);
  const m = g.rows * g.cols;
  const s1 = new Float64Array(m);
  const s2 = new Float64Array(m);
  const cnt = new Uint32Array(m);
  for (let r = 0; r < height; r++) {
    const base = Math.floor(r / g.cellRows) * g.cols;
    for (let c = 0; c < width; c++) {
      const p = r * width + c;
      if (target[p] === 0) continue;
      const k = base + Math.floor(c / g.cellCols);
      const v = values[p]!;
      s1[k]! += v;
      s2[k]! += v * v;
      cnt[k]!++;
    }
  }
  const valid = new Uint8Array(m);
  const mean = new Float32Array(m);
  const cv = new Float32Array(m);
  const finite: number[] = [];
  for (let k = 0; k < m; k++) {
    if (cnt[k] === 0) continue;
    valid[k] = 1;
    const mu = s1[k]! / cnt[k]!;
    mean[k] = mu;
    cv[k] = mu > 0 ? Math.sqrt(Math.max(0, s2[k]! / cnt[k]! - mu * mu)) / mu : 0;
    finite.push(mu);
  }
  const planes = new Float32Array(SEA_LAND_FEATURE_COUNT * m).fill(Number.NaN);
  const out: SeaLandFeatures = { ...g, valid, planes };
  if (finite.length === 0) return out;
  finite.sort((a, b) => a - b);
  const dark = Math.max(finite[Math.floor(0.1 * (finite.length - 1))]!, 1e-12);
  const darkLevelDb = db(finite[finite.length >> 1]! / dark);
  // Cell level (dB over the dark level) and its square, bright and dark indicators.
  const cdb = new Float32Array(m);
  const cdb2 = new Float32Array(m);
  const bright = new Float32Array(m);
  const darkCell = new Float32Array(m);
  for (let k = 0; k < m; k++) {
    if (!valid[k]) continue;
    const d = db(mean[k]! / dark);
    cdb[k] = d;
    cdb2[k] = d * d;
    bright[k] = d >= BRIGHT_DB ? 1 : 0;
    darkCell[k] = d <= DARK_DB ? 1 : 0;
  }
  const scratch = new BoxScratch();
  const box = (src: Float32Array, r: number) => boxMean(src, valid, g.cols, g.rows, r, r, new Float32Array(m), { scratch });
  const means = RADII.map((r) => box(mean, r));
  const spreads = RADII.slice(0, 3).map((r) => {
    const a = box(cdb, r);
    const b = box(cdb2, r);
    for (let k = 0; k < m; k++) a[k] = Math.sqrt(Math.max(0, b[k]! - a[k]! * a[k]!));
    return a;
  });
  const brights = RADII.slice(1).map((r) => box(bright, r));
  const darks = RADII.slice(1).map((r) => box(darkCell, r));
  const f = [cdb, cv, ...means.map((a) => a.map((v) => db(v / dark))), ...spreads, ...brights, ...darks];
  for (let j = 0; j < f.length; j++) {
    const plane = f[j]!;
    for (let k = 0; k < m; k++) if (valid[k]) planes[j * m + k] = plane[k]!;
  }
  for (let k = 0; k < m; k++) if (valid[k]) planes[(SEA_LAND_FEATURE_COUNT - 1) * m + k] = darkLevelDb;
  return out;
}

export function seaLandFeaturesAt(f: SeaLandFeatures, k: number, out: number[] = new Array<number>(SEA_LAND_FEATURE_COUNT)): number[] {
  const m = f.rows * f.cols;
  for (let j = 0; j < SEA_LAND_FEATURE_COUNT; j++) out[j] = f.planes[j * m + k]!;
  return out;
}

export interface SeaLandModel {
  model: GbtModel;
  /** A cell is called land at probability ≥ this (chosen on out-of-fold cells). */
  threshold: number;
  fitted: Record<string, unknown>;
}

/** The committed model (seaLandModel.json beside this file), read once per thread. */
export const seaLandModel = committedModel<SeaLandModel>(
  new URL('./seaLandModel.json', import.meta.url),
  'ship seaLandModel.json',
  (m) => m.model.featureNames,
  SEA_LAND_FEATURES,
  'training/ship/fitSeaLand.ts',
);

/** Land probability per cell. */
export function seaLandProbability(f: SeaLandFeatures, model: Pick<SeaLandModel, 'model'>): SeaLandField {
  const m = f.rows * f.cols;
  const land = new Float32Array(m).fill(Number.NaN);
  const x = new Array<number>(SEA_LAND_FEATURE_COUNT);
  for (let k = 0; k < m; k++) if (f.valid[k]) land[k] = gbtPredict(model.model, seaLandFeaturesAt(f, k, x));
  return { cellRows: f.cellRows, cellCols: f.cellCols, rows: f.rows, cols: f.cols, valid: f.valid, land };
}

/** The tile's land probability field from the committed model. */
export function seaLandField(values: Float32Array, target: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }, model: Pick<SeaLandModel, 'model'> = seaLandModel()): SeaLandField {
  return seaLandProbability(seaLandFeatures(values, target, width, height, spacing), model);
}

/** Land probability of the cell holding pixel (row, col) (NaN: no target pixel there). */
export function landAt(f: SeaLandField, row: number, col: number): number {
  return f.land[Math.floor(row / f.cellRows) * f.cols + Math.floor(col / f.cellCols)]!;
}

/**
 * The field with `distanceM`: per cell the distance (m, chamfer over the cell grid, capped at
 * LAND_DISTANCE_CAP_M) to the nearest cell whose land probability reaches `threshold` (default:
 * the committed one). Two passes over the cells.
 */
export function withLandDistance(f: SeaLandField, spacing: { range: number; azimuth: number }, threshold = seaLandModel().threshold): SeaLandField {
  const { rows, cols } = f;
  const d = new Float32Array(rows * cols);
  for (let k = 0; k < d.length; k++) d[k] = f.land[k]! >= threshold ? 0 : LAND_DISTANCE_CAP_M;
  const dy = f.cellRows * spacing.azimuth;
  const dx = f.cellCols * spacing.range;
  const dd = Math.hypot(dx, dy);
  const relax = (k: number, r: number, c: number, step: number) => {
    if (r < 0 || r >= rows || c < 0 || c >= cols) return;
    const v = d[r * cols + c]! + step;
    if (v < d[k]!) d[k] = v;
  };
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      relax(k, r - 1, c - 1, dd);
      relax(k, r - 1, c, dy);
      relax(k, r - 1, c + 1, dd);
      relax(k, r, c - 1, dx);
    }
  for (let r = rows - 1; r >= 0; r--)
    for (let c = cols - 1; c >= 0; c--) {
      const k = r * cols + c;
      relax(k, r + 1, c + 1, dd);
      relax(k, r + 1, c, dy);
      relax(k, r + 1, c - 1, dd);
      relax(k, r, c + 1, dx);
    }
  return { ...f, distanceM: d };
}

/**
 * A candidate's land features: the land probability at its peak, the mean and maximum over
 * the cells of its box grown by `growPx` pixels (NaN where no cell holds a target pixel), and
 * the distance to land at its peak (NaN when the field has no distances).
 */
export function candidateLandFeatures(f: SeaLandField, peakRow: number, peakCol: number, box: { rowMin: number; rowMax: number; colMin: number; colMax: number }, growPx: number): [number, number, number, number] {
  const r0 = Math.max(0, Math.floor((box.rowMin - growPx) / f.cellRows));
  const r1 = Math.min(f.rows - 1, Math.floor((box.rowMax + growPx) / f.cellRows));
  const c0 = Math.max(0, Math.floor((box.colMin - growPx) / f.cellCols));
  const c1 = Math.min(f.cols - 1, Math.floor((box.colMax + growPx) / f.cellCols));
  let n = 0;
  let s = 0;
  let mx = Number.NaN;
  for (let r = r0; r <= r1; r++)
    for (let c = c0; c <= c1; c++) {
      const v = f.land[r * f.cols + c]!;
      if (Number.isNaN(v)) continue;
      n++;
      s += v;
      if (!(v <= mx)) mx = v;
    }
  const cell = Math.floor(peakRow / f.cellRows) * f.cols + Math.floor(peakCol / f.cellCols);
  return [landAt(f, peakRow, peakCol), n ? s / n : Number.NaN, mx, f.distanceM ? f.distanceM[cell]! : Number.NaN];
}

/** The field's land cells (probability ≥ `threshold`) as a pixel mask, or-ed with `land` (not written into). */
export function landMaskOfField(f: SeaLandField, width: number, height: number, threshold = seaLandModel().threshold, land?: Uint8Array): Uint8Array {
  const out = land ? Uint8Array.from(land) : new Uint8Array(width * height);
  for (let r = 0; r < height; r++) {
    const base = Math.floor(r / f.cellRows) * f.cols;
    for (let c = 0; c < width; c++) if (f.land[base + Math.floor(c / f.cellCols)]! >= threshold) out[r * width + c] = 1;
  }
  return out;
}

/**
 * The segmenter as a land mask: 1 on every pixel of a cell whose land probability reaches the
 * committed threshold, or where `land` (if given) is already 1. The field is computed on the
 * `valid` pixels.
 */
export function sceneLandMask(values: Float32Array, valid: Uint8Array, width: number, height: number, spacing: { range: number; azimuth: number }, land?: Uint8Array): Uint8Array {
  return landMaskOfField(seaLandField(values, valid, width, height, spacing), width, height, seaLandModel().threshold, land);
}

/** A part's pixels count as near land within this distance (m) of a land cell (withLandDistance). */
export const PART_NEAR_LAND_M = 60;

/**
 * How a candidate part lies against the scene's land (issue 23 §1, split parts of quays and
 * moored ships): the share of its pixels in land cells (probability ≥ `threshold`), the share
 * within PART_NEAR_LAND_M of land (NaN without distances), the share of its boundary (pixels
 * with a 4-neighbour outside it) that touches land — a 4-neighbour outside the part in a land
 * cell — and that contact length over the part's length (`lengthM`; a hull moored along a quay
 * touches it over a fraction of its length, a piece of quay over all of it). `pixels` are linear
 * indices in a raster `width` wide; `pixelM` is the mean pixel spacing.
 */
export function partLandFeatures(f: SeaLandField, pixels: ArrayLike<number>, width: number, height: number, pixelM: number, lengthM: number, threshold = seaLandModel().threshold): [number, number, number, number] {
  const n = pixels.length;
  if (!n) return [Number.NaN, Number.NaN, Number.NaN, Number.NaN];
  const cellOf = (r: number, c: number) => Math.floor(r / f.cellRows) * f.cols + Math.floor(c / f.cellCols);
  const own = new Set<number>();
  for (let k = 0; k < n; k++) own.add(pixels[k]!);
  let onLand = 0;
  let near = 0;
  let boundary = 0;
  let contact = 0;
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const r = (p / width) | 0;
    const c = p - r * width;
    const cell = cellOf(r, c);
    if (f.land[cell]! >= threshold) onLand++;
    if (f.distanceM && f.distanceM[cell]! <= PART_NEAR_LAND_M) near++;
    let edge = false;
    let touches = false;
    for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]] as const) {
      const rr = r + dr;
      const cc = c + dc;
      if (rr < 0 || rr >= height || cc < 0 || cc >= width || own.has(rr * width + cc)) continue;
      edge = true;
      if (f.land[cellOf(rr, cc)]! >= threshold) touches = true;
    }
    if (edge) boundary++;
    if (touches) contact++;
  }
  return [onLand / n, f.distanceM ? near / n : Number.NaN, boundary ? contact / boundary : Number.NaN, lengthM > 0 ? (contact * pixelM) / lengthM : Number.NaN];
}
