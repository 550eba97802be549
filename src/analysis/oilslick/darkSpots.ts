/**
 * Dark-spot detection on one tile of VV σ0: the pixels that are clearly darker than the sea
 * around them, as a smoothed binary mask and its 8-connected regions.
 *
 * Steps (all on a multilooked "working" grid, see OilSlickParams.multilook):
 * 1. Multilook: mean linear σ0 over usable sea pixels (valid data, not land) per m × m block.
 * 2. Speckle: mean over a small box (speckleWindowPx), then dB. Single 20 m pixels have
 *    about 1 dB of speckle spread even after multilooking; a 2 dB test on them would flag
 *    ~5 % of open sea. After the box (≈ 100 looks) the spread is ≈ 0.4 dB.
 * 3. Background, pass 1: mean of the smoothed dB over a large box (backgroundWindowM) of
 *    usable sea. The mean is taken in dB, not in linear power, so a ship (+25 dB over a few
 *    pixels) barely moves it: in linear power the North-Sea crop's large ships lifted a
 *    500 m background by up to 12 dB and ringed themselves with false dark spots.
 * 4. Background, pass 2: the same mean without the pixels pass 1 found dark, so that a slick
 *    does not darken its own background (with one pass, a slick wider than about half the
 *    window comes out hollow).
 * 5. Dark: smoothed dB < background dB − shift.
 * 6. Morphological closing then opening (square, radius morphologyRadiusPx) to join the
 *    patchy inside of a slick and drop one-pixel spurs.
 * 7. 8-connected labelling.
 *
 * Box means are src/raster/boxMean.ts's running sums (O(1) per pixel whatever the window). Every step is
 * local, so a pixel's result depends only on pixels within `darkSpotSupportPx` of it: a
 * tile whose halo is at least that wide gives its core exactly the whole-image answer.
 */
import type { OilSlickParams } from './params.ts';
import { BoxScratch, boxMean } from '../../raster/boxMean.ts';
import { ComponentScratch, componentLabels, connectedComponents } from '../../raster/components.ts';
import type { Scratch, ScratchArray } from '../../raster/scratch.ts';

export interface PixelSpacing {
  /** Metres between columns. */
  range: number;
  /** Metres between rows. */
  azimuth: number;
}

export interface DarkSpotInput {
  /** Linear σ0 VV, row-major width × height. */
  sigma0: Float32Array;
  /** 1 where the pixel has data. */
  valid: Uint8Array;
  /** 1 on land (shore buffer included); optional. */
  land?: Uint8Array;
  width: number;
  height: number;
  pixelSpacing: PixelSpacing;
}

export type DarkSpotParams = Pick<
  OilSlickParams,
  'multilook' | 'speckleWindowPx' | 'backgroundWindowM' | 'fineBackgroundWindowM' | 'thresholdShiftDb' | 'minBackgroundFraction' | 'morphologyRadiusPx' | 'brightTargetDb'
>;

/** Everything later steps need, on the working grid. */
export interface DarkSpotMap {
  width: number;
  height: number;
  multilook: number;
  /** Working-pixel spacing (m). */
  spacing: PixelSpacing;
  /** 1 where the working pixel is usable sea. */
  sea: Uint8Array;
  /** Speckle-smoothed σ0 in dB; NaN off sea. */
  smoothDb: Float32Array;
  /**
   * Local background (dB, pass 2); NaN where it could not be estimated. With a fine scale as
   * well, the brighter of the two backgrounds (the one a pixel is measured against).
   */
  backgroundDb: Float32Array;
  /** Final dark mask (after closing and opening): dark at either scale. */
  dark: Uint8Array;
  /**
   * Summed-area table ((width+1) × (height+1)) of bright-target pixels: working pixels whose
   * own σ0 (before the speckle box) is brightTargetDb above the background — ships, platforms.
   */
  brightSat: Int32Array;
}

/** Background half-window (working pixels) along columns (x) and rows (y). */
export function backgroundRadius(params: Pick<DarkSpotParams, 'backgroundWindowM'>, spacing: PixelSpacing): { rx: number; ry: number } {
  return windowRadius(params.backgroundWindowM, spacing);
}

/** Half-window (working pixels) of a square window `sideM` metres wide. */
export function windowRadius(sideM: number, spacing: PixelSpacing): { rx: number; ry: number } {
  return {
    rx: Math.max(1, Math.round(sideM / 2 / spacing.range)),
    ry: Math.max(1, Math.round(sideM / 2 / spacing.azimuth)),
  };
}

/**
 * How far (working pixels) the dark mask at a pixel can depend on other pixels: the speckle
 * box, then two background windows (pass 2 excludes pass-1 results, which themselves look a
 * window further), then the morphology.
 */
export function darkSpotSupportPx(params: DarkSpotParams, spacing: PixelSpacing): number {
  const { rx, ry } = windowRadius(Math.max(params.backgroundWindowM, params.fineBackgroundWindowM), spacing);
  const rs = (params.speckleWindowPx - 1) / 2;
  return 2 * Math.max(rx, ry) + 2 * rs + 2 * params.morphologyRadiusPx;
}

/**
 * Mean σ0 of usable sea pixels per m × m block. A block is sea when at least half of its
 * pixels are; the grid starts at the array's (0, 0), so tiles whose origins are multiples of
 * m share one global grid.
 */
export function multilookSea(input: DarkSpotInput, m: number, scratch?: Scratch): { width: number; height: number; level: Float32Array; sea: Uint8Array } {
  const { sigma0, valid, land, width, height } = input;
  if (sigma0.length !== width * height || valid.length !== width * height || (land && land.length !== width * height)) {
    throw new RangeError(`dark spots: arrays must hold ${width} × ${height} values`);
  }
  const w = Math.ceil(width / m);
  const h = Math.ceil(height / m);
  const sum = new Float64Array(w);
  const count = new Int32Array(w);
  const level = scratch ? scratch.array('level', Float32Array, w * h).fill(0) : new Float32Array(w * h);
  const sea = scratch ? scratch.array('sea', Uint8Array, w * h).fill(0) : new Uint8Array(w * h);
  for (let by = 0; by < h; by++) {
    const yEnd = Math.min(height, (by + 1) * m);
    if (m === 2 && yEnd - by * m === 2 && width % 2 === 0) {
      multilookPair(input, by, w, level, sea);
      continue;
    }
    sum.fill(0);
    count.fill(0);
    for (let y = by * m; y < yEnd; y++) {
      const row = y * width;
      if (land === undefined) {
        for (let bx = 0, x = 0; bx < w; bx++) {
          const xEnd = Math.min(width, x + m);
          let s = 0;
          let n = 0;
          for (; x < xEnd; x++) {
            if (valid[row + x] === 0) continue;
            s += sigma0[row + x]!;
            n++;
          }
          sum[bx]! += s;
          count[bx]! += n;
        }
      } else {
        for (let bx = 0, x = 0; bx < w; bx++) {
          const xEnd = Math.min(width, x + m);
          let s = 0;
          let n = 0;
          for (; x < xEnd; x++) {
            if (valid[row + x] === 0 || land[row + x] !== 0) continue;
            s += sigma0[row + x]!;
            n++;
          }
          sum[bx]! += s;
          count[bx]! += n;
        }
      }
    }
    for (let bx = 0; bx < w; bx++) {
      const blockPixels = (Math.min(width, (bx + 1) * m) - bx * m) * (yEnd - by * m);
      const n = count[bx]!;
      if (n > 0 && 2 * n >= blockPixels) {
        level[by * w + bx] = sum[bx]! / n;
        sea[by * w + bx] = 1;
      }
    }
  }
  return { width: w, height: h, level, sea };
}

/**
 * multilookSea's 2 × 2 blocks of block row `by` (two full rows, even width): the same sums in
 * the same order — each row's two pixels left to right, the upper row's sum first — without the
 * general loop's per-pixel bounds and the per-row accumulators (the hot loop of a full scene).
 */
function multilookPair(input: DarkSpotInput, by: number, w: number, level: Float32Array, sea: Uint8Array): void {
  const { sigma0, valid, land, width } = input;
  const r0 = 2 * by * width;
  const r1 = r0 + width;
  for (let bx = 0; bx < w; bx++) {
    const a = r0 + 2 * bx;
    const c = r1 + 2 * bx;
    const u0 = valid[a] !== 0 && (land === undefined || land[a] === 0);
    const u1 = valid[a + 1] !== 0 && (land === undefined || land[a + 1] === 0);
    const u2 = valid[c] !== 0 && (land === undefined || land[c] === 0);
    const u3 = valid[c + 1] !== 0 && (land === undefined || land[c + 1] === 0);
    const n = (u0 ? 1 : 0) + (u1 ? 1 : 0) + (u2 ? 1 : 0) + (u3 ? 1 : 0);
    // A block is sea when at least half of its 4 pixels are.
    if (n < 2) continue;
    let top = 0;
    if (u0) top += sigma0[a]!;
    if (u1) top += sigma0[a + 1]!;
    let bottom = 0;
    if (u2) bottom += sigma0[c]!;
    if (u3) bottom += sigma0[c + 1]!;
    level[by * w + bx] = (0 + top + bottom) / n;
    sea[by * w + bx] = 1;
  }
}

// ---------------------------------------------------- dB of float32 values, bit for bit
// smoothDb[i] = 10·log10(max(v, 1e-6)) stored as float32, for each of a tile's ~1.6 M working
// pixels: Math.log10 was a tenth of the dark spots' time. v is itself a float32 (a box mean
// stored as one), so its exponent and mantissa bits give log10 = e·log10 2 + log10 m from a
// 2048-entry table and a 4-term series (|u| < 2⁻¹¹: truncation below 10⁻¹⁶). That estimate
// and the reference (10 · Math.log10 in float64) each lie within ~10⁻¹³ of the true value for
// every result this sees (|dB| ≤ 60); where y − DB_SLACK and y + DB_SLACK round to the same
// float32, that float32 is also the reference's rounding (rounding is monotonic). Otherwise —
// about once in a million — the reference itself is computed. So the stored values are those of
// the reference, bit for bit (test/analysis/oilslick.test.ts sweeps float32 ranges against it).

const DB_BITS = new Float32Array(1);
const DB_WORD = new Uint32Array(DB_BITS.buffer);
const LOG10_TABLE = Float64Array.from({ length: 2048 }, (_, j) => Math.log10(1 + j / 2048));
const INV_TABLE = Float64Array.from({ length: 2048 }, (_, j) => 1 / (1 + j / 2048));
const LOG10_2 = Math.log10(2);
const INV_LN10 = 1 / Math.LN10;
/** Absolute bound (dB) on the estimate's and the reference's distance, with a margin of > 10×. */
const DB_SLACK = 1e-12;
/** Smallest normal float32. */
const MIN_NORMAL_F32 = 2 ** -126;

/** Math.fround(10 · Math.log10(Math.max(v, 1e-6))) for a float32 value v (see above). */
export function db32(v: number): number {
  if (!(v >= 1e-6 && v >= MIN_NORMAL_F32 && v < Infinity)) return Math.fround(10 * Math.log10(Math.max(v, 1e-6)));
  DB_BITS[0] = v;
  const bits = DB_WORD[0]!;
  const e = (bits >>> 23) - 127;
  const j = (bits >>> 12) & 2047;
  // v = 2^e · (1 + j/2048 + rest·2⁻²³) = 2^e · m_j · (1 + u).
  const u = (bits & 4095) * 1.1920928955078125e-7 * INV_TABLE[j]!;
  const ln1pu = u * (1 - u * (0.5 - u * (1 / 3 - u * 0.25)));
  const y = 10 * (e * LOG10_2 + LOG10_TABLE[j]! + ln1pu * INV_LN10);
  const lo = Math.fround(y - DB_SLACK);
  if (lo === Math.fround(y + DB_SLACK)) return lo;
  return Math.fround(10 * Math.log10(v));
}

/** values[i] ← db32(values[i]) where mask[i], NaN elsewhere (values are float32). */
function toDb32(values: Float32Array, mask: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) values[i] = mask[i] !== 0 ? db32(values[i]!) : Number.NaN;
}

/** 1 for each row that holds a set pixel. */
function rowsWithPixels(mask: Uint8Array, w: number, h: number, out: Uint8Array): void {
  for (let y = 0; y < h; y++) {
    let any = 0;
    const row = y * w;
    for (let x = 0; x < w; x++) any |= mask[row + x]!;
    out[y] = any;
  }
}

/**
 * One step of binary dilation (OR) or erosion (AND) with a 3 × 3 square, separable, the
 * array edge replicated; a radius-r square is r steps. Dark masks are sparse, so rows whose
 * neighbourhood is empty are cleared without looking at their pixels.
 */
function morphStep(src: Uint8Array, w: number, h: number, dilate: boolean, rowAny: Uint8Array, tmp: Uint8Array, out: Uint8Array): void {
  rowsWithPixels(src, w, h, rowAny);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    if (rowAny[y] === 0) {
      tmp.fill(0, row, row + w);
      continue;
    }
    if (w === 1) {
      tmp[row] = src[row]!;
      continue;
    }
    if (dilate) {
      tmp[row] = src[row]! | src[row + 1]!;
      for (let x = 1; x < w - 1; x++) tmp[row + x] = src[row + x - 1]! | src[row + x]! | src[row + x + 1]!;
      tmp[row + w - 1] = src[row + w - 2]! | src[row + w - 1]!;
    } else {
      tmp[row] = src[row]! & src[row + 1]!;
      for (let x = 1; x < w - 1; x++) tmp[row + x] = src[row + x - 1]! & src[row + x]! & src[row + x + 1]!;
      tmp[row + w - 1] = src[row + w - 2]! & src[row + w - 1]!;
    }
  }
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const yu = y > 0 ? y - 1 : y;
    const yd = y < h - 1 ? y + 1 : y;
    // A row of tmp is empty exactly when the same row of src was.
    const empty = dilate ? (rowAny[yu]! | rowAny[y]! | rowAny[yd]!) === 0 : (rowAny[yu]! & rowAny[y]! & rowAny[yd]!) === 0;
    if (empty) {
      out.fill(0, row, row + w);
      continue;
    }
    const up = yu * w;
    const down = yd * w;
    if (dilate) for (let x = 0; x < w; x++) out[row + x] = tmp[up + x]! | tmp[row + x]! | tmp[down + x]!;
    else for (let x = 0; x < w; x++) out[row + x] = tmp[up + x]! & tmp[row + x]! & tmp[down + x]!;
  }
}

function morph(mask: Uint8Array, w: number, h: number, r: number, dilate: boolean, rowAny: Uint8Array, tmp: Uint8Array, out: Uint8Array): void {
  if (r === 0) {
    out.set(mask);
    return;
  }
  morphStep(mask, w, h, dilate, rowAny, tmp, out);
  for (let k = 1; k < r; k++) {
    const copy = out.slice();
    morphStep(copy, w, h, dilate, rowAny, tmp, out);
  }
}

/** Closing then opening of `mask` in place, kept inside `within`. */
export function smoothMask(mask: Uint8Array, within: Uint8Array, w: number, h: number, r: number, alloc: Alloc = fresh): void {
  if (r <= 0) return;
  // Both are written throughout before they are read (morphStep writes every row).
  const tmp = alloc('morphTmp', Uint8Array, w * h);
  const a = alloc('morphA', Uint8Array, w * h);
  const rowAny = new Uint8Array(h);
  morph(mask, w, h, r, true, rowAny, tmp, a);
  morph(a, w, h, r, false, rowAny, tmp, mask);
  for (let i = 0; i < mask.length; i++) mask[i]! &= within[i]!;
  morph(mask, w, h, r, false, rowAny, tmp, a);
  morph(a, w, h, r, true, rowAny, tmp, mask);
}

/**
 * Two-pass background at one scale (see the file comment) into `out`; `open` is scratch.
 * Returns nothing; pixels where no background can be estimated get NaN.
 */
function twoPassBackground(
  smoothDb: Float32Array,
  sea: Uint8Array,
  w: number,
  h: number,
  r: { rx: number; ry: number },
  params: DarkSpotParams,
  scratch: BoxScratch,
  out: Float32Array,
  alloc: Alloc,
): void {
  const n = w * h;
  const shift = params.thresholdShiftDb;
  const minFraction = params.minBackgroundFraction;
  const background1 = boxMean(smoothDb, sea, w, h, r.rx, r.ry, alloc('background1', Float32Array, n), { minFraction, scratch });
  // Pass 2: the background of the sea that pass 1 did not call dark.
  const open = alloc('open', Uint8Array, n);
  // Rows where pass 1 found dark sea (a few per cent of a tile's rows): only their row sums
  // change; the others are pass 1's (boxMean's changedRows), the same numbers.
  const changed = new Uint8Array(h);
  for (let y = 0; y < h; y++) {
    let dropped = 0;
    for (let i = y * w; i < (y + 1) * w; i++) {
      const o = sea[i] !== 0 && !(smoothDb[i]! < background1[i]! - shift) ? 1 : 0;
      open[i] = o;
      dropped |= sea[i]! ^ o;
    }
    changed[y] = dropped;
  }
  boxMean(smoothDb, open, w, h, r.rx, r.ry, out, { where: sea, minFraction, fallback: background1, scratch, changedRows: changed });
}


/**
 * Where detectDarkSpots' rasters come from: fresh arrays, or a thread's DarkSpotScratch (the
 * map is then valid until the next call with that scratch).
 */
type Alloc = <T extends ScratchArray>(name: string, ctor: { new (n: number): T; readonly BYTES_PER_ELEMENT: number }, n: number) => T;
const fresh: Alloc = (_name, ctor, n) => new ctor(n);

/**
 * A thread's reusable rasters for detectDarkSpots and labelRegions: tile-sized arrays that
 * were allocated, page-faulted and collected for every tile (≈ 60 MB per full-scene tile).
 */
export class DarkSpotScratch extends BoxScratch {
  readonly components = new ComponentScratch();
}

/**
 * This thread's scratch (each worker thread has its own module instance): the box means'
 * float64 buffers of every call, and all of a tile's rasters for callers that pass it
 * (tile.ts). Their content is unspecified between uses.
 */
export const THREAD_DARK_SPOT_SCRATCH = new DarkSpotScratch();

/**
 * Dark-spot mask and the intermediate rasters of one tile. With `scratch`, every raster is
 * one of its arrays: the map is valid until the next call with the same scratch.
 */
export function detectDarkSpots(input: DarkSpotInput, params: DarkSpotParams, reuse?: DarkSpotScratch): DarkSpotMap {
  const m = params.multilook;
  const alloc: Alloc = reuse ? (name, ctor, n) => reuse.array(name, ctor, n) : fresh;
  const { width: w, height: h, level, sea } = multilookSea(input, m, reuse);
  const spacing = { range: input.pixelSpacing.range * m, azimuth: input.pixelSpacing.azimuth * m };
  const n = w * h;
  const scratch = reuse ?? THREAD_DARK_SPOT_SCRATCH;
  const shift = params.thresholdShiftDb;
  const rs = (params.speckleWindowPx - 1) / 2;

  const smoothDb = boxMean(level, sea, w, h, rs, rs, alloc('smoothDb', Float32Array, n), { minFraction: 1e-9, scratch });
  // −60 dB floor: an exact 0 (possible in synthetic input) must not become −∞ in the sums.
  toDb32(smoothDb, sea, n);

  const backgroundDb = alloc('backgroundDb', Float32Array, n);
  twoPassBackground(smoothDb, sea, w, h, backgroundRadius(params, spacing), params, scratch, backgroundDb, alloc);
  const dark = alloc('dark', Uint8Array, n);
  for (let i = 0; i < n; i++) dark[i] = smoothDb[i]! < backgroundDb[i]! - shift ? 1 : 0;
  if (params.fineBackgroundWindowM > 0) {
    // A second, finer scale: thin or small slicks next to brighter sea that the coarse
    // window averages away (the coarse one catches slicks wider than the fine window).
    const fine = alloc('fine', Float32Array, n);
    twoPassBackground(smoothDb, sea, w, h, windowRadius(params.fineBackgroundWindowM, spacing), params, scratch, fine, alloc);
    for (let i = 0; i < n; i++) {
      const f = fine[i]!;
      if (smoothDb[i]! < f - shift) dark[i] = 1;
      if (f > backgroundDb[i]! || (f === f && backgroundDb[i] !== backgroundDb[i])) backgroundDb[i] = f;
    }
  }
  smoothMask(dark, sea, w, h, params.morphologyRadiusPx, alloc);

  // Bright targets: a working pixel's own level (20 m, no speckle box) far above the background.
  // With no negative level, a pixel's level is at most (its box's sea pixels) × the box mean, so
  // its dB is at most smoothDb + 10·log10((2rs+1)²): pixels below the bright level by more than
  // that (nearly all sea) need no logarithm of their own; the test is unchanged.
  let minLevel = 0;
  for (let i = 0; i < n; i++) if (level[i]! < minLevel) minLevel = level[i]!;
  const boxGainDb = minLevel >= 0 ? 10 * Math.log10((2 * rs + 1) ** 2) + 0.01 : Number.POSITIVE_INFINITY;
  // Row 0 and column 0 of the table stay 0 (a reused array is cleared).
  const brightSat = reuse ? reuse.array('brightSat', Int32Array, (w + 1) * (h + 1)).fill(0) : new Int32Array((w + 1) * (h + 1));
  const W = w + 1;
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (sea[i] !== 0) {
        const bright = backgroundDb[i]! + params.brightTargetDb;
        if (!(smoothDb[i]! + boxGainDb < bright) && 10 * Math.log10(Math.max(level[i]!, 1e-6)) > bright) row++;
      }
      brightSat[(y + 1) * W + x + 1] = brightSat[y * W + x + 1]! + row;
    }
  }
  return { width: w, height: h, multilook: m, spacing, sea, smoothDb, backgroundDb, dark, brightSat };
}

export interface Labels {
  /** 0 = background; 1 … count = regions, in raster order of their first pixel. */
  labels: Int32Array;
  count: number;
  /** Pixels per label (index 0 unused). */
  sizes: Int32Array;
  /** 1 when the region reaches the array border (it may continue outside). */
  touchesBorder: Uint8Array;
}

/** 8-connected regions of a binary mask (src/raster/components.ts's labeller); with `reuse`, the labels are its array (valid until its next use). */
export function labelRegions(mask: Uint8Array, w: number, h: number, reuse?: DarkSpotScratch): Labels {
  const c = connectedComponents(mask, w, h, reuse ? { scratch: reuse.components } : {});
  const sizes = new Int32Array(c.count + 1);
  const touchesBorder = new Uint8Array(c.count + 1);
  for (let k = 0; k < c.count; k++) {
    sizes[k + 1] = c.offsets[k + 1]! - c.offsets[k]!;
    for (let i = c.offsets[k]!; i < c.offsets[k + 1]!; i++) {
      const p = c.pixels[i]!;
      const y = (p / w) | 0;
      const x = p - y * w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) {
        touchesBorder[k + 1] = 1;
        break;
      }
    }
  }
  return { labels: componentLabels(c, w * h, reuse ? reuse.array('labels', Int32Array, w * h) : undefined), count: c.count, sizes, touchesBorder };
}
