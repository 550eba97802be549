/**
 * Full-resolution outline of an accepted slick (issue 11: thin ship trails).
 *
 * Dark spots are found on the 20 m working grid after a 60 m speckle box and a 3 × 3 opening
 * (darkSpots.ts): right for deciding what is dark, but a trail 20–100 m wide comes out 70–90 m
 * wide whatever its true width. Once a candidate is accepted (features, model and vetoes are
 * done and unchanged), its outline is redrawn here from the full-resolution σ0 of a bounded
 * window around it — nothing else about the candidate changes:
 *
 * 1. Zone: the candidate's working-grid mask at full resolution, dilated by ZONE_MARGIN_M. The
 *    outline can only move that far outwards (and anywhere inwards).
 * 2. Level: σ0 averaged over a 3 × 3 box of full-resolution pixels (30 m; ≈ 40 looks from IW
 *    GRDH's 4.4 if the pixels were independent, ≈ 0.7 dB of speckle spread), in dB.
 * 3. Threshold: halfway in dB between the candidate's own background (its measured
 *    `backgroundDb`, the level the dark test used) and the level of the film's inside: the
 *    mean of the cells below the threshold whose 3 × 3 neighbours all are too (the plateau,
 *    not the edge ramp, which would pull a thin trail's level up and its outline out), or of
 *    all cells below it when the film is too thin to have such cells. Iterated from
 *    background − shift. The halfway contour is where the damping is half of the inside's;
 *    it is never less than `shiftDb` below the background (the detector's own dark test), so a
 *    weak candidate is not widened into speckle.
 * 4. A 3 × 3 majority vote on the thresholded cells: speckle flips cells on both sides of the
 *    edge alike, and the vote removes both kinds (a plain "drop specks, fill holes" would keep
 *    the outward flips attached to the edge and fill the inward ones: a wider outline).
 * 5. Clean-up at the working grid's resolution (3 × 3 working pixels, 60 m × 60 m): parts
 *    smaller than that are dropped, holes smaller than that are filled (the 20 m detector could
 *    not have resolved either), and only parts that overlap the original candidate are kept.
 *
 * If anything is missing (no background, no dark cell, a window over MAX_WINDOW_PIXELS) the
 * caller keeps the working-grid outline. The work is local: one window of at most
 * MAX_WINDOW_PIXELS per accepted slick, read once (box means: src/raster/boxMean.ts; labels:
 * labelRegions; outlines: maskToPolygons).
 */
import { maskToPolygons } from '../../geo/vectorize.ts';
import type { Polygon } from '../../geo/types.ts';
import { BoxScratch, boxMean } from '../../raster/boxMean.ts';
import { labelRegions, type PixelSpacing } from './darkSpots.ts';
import { secondMoments } from './discriminate.ts';

/** Where the film's level is measured: the working-grid mask grown by this much (m). */
export const ZONE_MARGIN_M = 20;
/**
 * How far (m) the outline may grow beyond the working-grid mask: through connected cells below
 * the halfway level (region growing to the film's edge: faint tails, thin arms and the soft
 * rim the 20 m grid's 2 dB test and opening cut off; issue 24 §1).
 */
export const GROW_MARGIN_M = 300;
/** Parts and holes smaller than this (m²) are below the working grid's resolution (3 × 3 × 20 m). */
export const MIN_FEATURE_M2 = 3600;
/**
 * Largest window (full-resolution pixels) refined: 2²¹, e.g. 1,448 × 1,448 px (14.5 km square
 * at 10 m; a diagonal trail of 20 km); larger regions keep the working-grid outline. Peak
 * memory about 60 B per pixel (the box sums are float64): ≈ 125 MB at the limit.
 */
export const MAX_WINDOW_PIXELS = 1 << 21;
/** Threshold iterations (it settles to 0.01 dB in a few). */
const MAX_ITERATIONS = 8;

/** The part of SlickRegion this needs (working-grid row runs and box). */
export interface RegionRuns {
  /** (y, x start, x end exclusive) row runs, working grid. */
  runs: Int32Array;
  box: { x0: number; y0: number; x1: number; y1: number };
}

/** A full-resolution window of the image: origin and size, plus (once read) its pixels. */
export interface OutlineWindow {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

export interface OutlinePixels extends OutlineWindow {
  /** Linear σ0, row-major width × height. */
  sigma0: Float32Array;
  /** 1 where the pixel has data. */
  valid: Uint8Array;
  /** 1 on land (shore buffer included); optional. */
  land?: Uint8Array;
}

/** Full-resolution margin (px, a multiple of the multilook) around the region's box: the zone and the 3 × 3 box. */
function marginPx(multilook: number, spacing: PixelSpacing): number {
  const zone = Math.ceil(GROW_MARGIN_M / Math.min(spacing.range, spacing.azimuth));
  return Math.ceil((zone + 2) / multilook) * multilook;
}

/**
 * The full-resolution window to read for a region: its box grown by the zone margin, within
 * `bounds` (the analysed part of the image); its origin stays on the multilook grid when the
 * bounds' origin is. Null when it would exceed MAX_WINDOW_PIXELS.
 */
export function outlineWindow(region: RegionRuns, multilook: number, spacing: PixelSpacing, bounds: OutlineWindow): OutlineWindow | null {
  const m = multilook;
  const g = marginPx(m, spacing);
  const x0 = Math.max(bounds.x0, region.box.x0 * m - g);
  const y0 = Math.max(bounds.y0, region.box.y0 * m - g);
  const x1 = Math.min(bounds.x0 + bounds.width, (region.box.x1 + 1) * m + g);
  const y1 = Math.min(bounds.y0 + bounds.height, (region.box.y1 + 1) * m + g);
  if (x1 <= x0 || y1 <= y0 || (x1 - x0) * (y1 - y0) > MAX_WINDOW_PIXELS) return null;
  return { x0, y0, width: x1 - x0, height: y1 - y0 };
}

/**
 * The refined mask of a region over `pixels` (1 inside; width × height of the window), or
 * null when it cannot be refined (the working-grid outline stands). Mask cell (row, col) is
 * the image pixel (y0 + row, x0 + col).
 */
export function refineOutlineMask(
  region: RegionRuns,
  backgroundDb: number,
  multilook: number,
  spacing: PixelSpacing,
  pixels: OutlinePixels,
  shiftDb: number,
): Uint8Array | null {
  if (!Number.isFinite(backgroundDb)) return null;
  const { x0, y0, width: w, height: h, sigma0, valid, land } = pixels;
  const n = w * h;
  if (sigma0.length !== n || valid.length !== n || (land && land.length !== n)) throw new RangeError(`refineOutlineMask: arrays must hold ${w} × ${h} values`);
  const m = multilook;
  // The candidate at full resolution, and its zone.
  const dx = Math.ceil(ZONE_MARGIN_M / spacing.range);
  const dy = Math.ceil(ZONE_MARGIN_M / spacing.azimuth);
  const inside = new Uint8Array(n);
  // 1: the near zone (where the film's level is measured); 2: where the outline may grow.
  const zone = new Uint8Array(n);
  const { runs } = region;
  for (let k = 0; k < runs.length; k += 3) {
    const ya = runs[k]! * m - y0;
    const xa = runs[k + 1]! * m - x0;
    const xb = runs[k + 2]! * m - x0;
    for (let y = Math.max(0, ya); y < Math.min(h, ya + m); y++) inside.fill(1, y * w + Math.max(0, xa), y * w + Math.min(w, xb));
    for (let y = Math.max(0, ya - dy); y < Math.min(h, ya + m + dy); y++) zone.fill(1, y * w + Math.max(0, xa - dx), y * w + Math.min(w, xb + dx));
  }
  // Level (dB): the 3 × 3 box mean of the usable pixels (src/raster/boxMean.ts).
  const usable = new Uint8Array(n);
  for (let i = 0; i < n; i++) usable[i] = valid[i] !== 0 && (!land || land[i] === 0) ? 1 : 0;
  const scratch = new BoxScratch();
  const smoothed = boxMean(sigma0, usable, w, h, 1, 1, new Float32Array(n), { scratch });
  const level = smoothed; // reused in place
  for (let i = 0; i < n; i++) level[i] = usable[i] !== 0 ? 10 * Math.log10(Math.max(smoothed[i]!, 1e-6)) : Number.NaN;

  // Threshold halfway between the background and the film's own level: the mean of the cells
  // below the threshold whose 3 × 3 neighbours all are too (the plateau, not its edges), or of
  // all of them when the film is too thin for that; iterated from background − shift.
  const all = new Uint8Array(n).fill(1);
  const dark = new Float32Array(n);
  const share = new Float32Array(n);
  let threshold = backgroundDb - shiftDb;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const below = zone[i] !== 0 && level[i]! < threshold;
      dark[i] = below ? 1 : 0;
      if (below) {
        sum += level[i]!;
        count++;
      }
    }
    if (count === 0) return null;
    boxMean(dark, all, w, h, 1, 1, share, { scratch });
    let coreSum = 0;
    let coreCount = 0;
    for (let i = 0; i < n; i++) {
      if (zone[i] !== 0 && share[i]! > 1 - 1e-6) {
        coreSum += level[i]!;
        coreCount++;
      }
    }
    const core = coreCount > 0 ? coreSum / coreCount : sum / count;
    const next = Math.min(backgroundDb - shiftDb, (backgroundDb + core) / 2);
    const done = Math.abs(next - threshold) < 0.01;
    threshold = next;
    if (done) break;
  }

  // Dark cells, then a 3 × 3 majority vote (symmetric: speckle neither grows nor eats the
  // edge); the vote never adds a cell without a level (outside the zone, land, no data).
  for (let i = 0; i < n; i++) dark[i] = level[i]! < threshold ? 1 : 0;
  boxMean(dark, all, w, h, 1, 1, share, { scratch });
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = share[i]! > 0.5 && level[i] === level[i] ? 1 : 0;

  // Keep the parts that overlap the candidate (grown through connected dark cells as far as the
  // window reaches) and are at least the working grid's resolution.
  const minCells = Math.max(1, Math.round(MIN_FEATURE_M2 / (spacing.range * spacing.azimuth)));
  const parts = labelRegions(mask, w, h);
  const keep = new Uint8Array(parts.count + 1);
  for (let i = 0; i < n; i++) {
    const l = parts.labels[i]!;
    if (l !== 0 && inside[i] !== 0 && parts.sizes[l]! >= minCells) keep[l] = 1;
  }
  let kept = 0;
  for (let i = 0; i < n; i++) {
    mask[i] = keep[parts.labels[i]!]!;
    kept += mask[i]!;
  }
  if (kept === 0) return null;
  // Fill holes too small for the working grid to have shown (enclosed: not touching the window's edge).
  for (let i = 0; i < n; i++) inside[i] = mask[i] === 0 ? 1 : 0;
  const gaps = labelRegions(inside, w, h);
  for (let i = 0; i < n; i++) {
    const l = gaps.labels[i]!;
    if (l !== 0 && gaps.touchesBorder[l] === 0 && gaps.sizes[l]! < minCells) mask[i] = 1;
  }
  return mask;
}

/**
 * Polygons (holes kept) of a refined mask: pixel-edge outlines, each corner mapped by
 * `toLonLat(line, pixel)` (full-resolution image coordinates; integers are pixel centres),
 * simplified by Douglas–Peucker at `simplifyTolerancePx` full-resolution pixels.
 */
export function refinedPolygons(
  mask: Uint8Array,
  window: OutlineWindow,
  toLonLat: (line: number, pixel: number) => [number, number],
  simplifyTolerancePx: number,
): Polygon[] {
  return maskToPolygons(mask, window.width, window.height, (row, col) => toLonLat(window.y0 + row, window.x0 + col), {
    connectivity: 8,
    simplifyTolerance: simplifyTolerancePx,
  }).map((p) => p.geometry);
}

/**
 * Length and width (m) of a refined mask — the `length_m` and `width_m` a refined slick
 * reports, so that they describe its outline: the length is the second-moment length as the
 * features measure a region (√(12·major variance), discriminate.ts), at full resolution; the
 * width is the area over that length, the mean width of a band that long (the second-moment
 * width of a thin, ragged or curved trail is wider than the trail: 38 m for a 30 m one).
 * `spacing` is the full-resolution pixel spacing.
 */
export function maskAxesM(mask: Uint8Array, width: number, height: number, spacing: PixelSpacing): { lengthM: number; widthM: number } | null {
  let pixelCount = 0;
  let sumX = 0;
  let sumY = 0;
  let sumXX = 0;
  let sumYY = 0;
  let sumXY = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x] === 0) continue;
      pixelCount++;
      sumX += x;
      sumY += y;
      sumXX += x * x;
      sumYY += y * y;
      sumXY += x * y;
    }
  }
  if (pixelCount === 0) return null;
  const { major } = secondMoments({ pixelCount, sumX, sumY, sumXX, sumYY, sumXY }, spacing);
  const lengthM = Math.sqrt(12 * major);
  return { lengthM, widthM: (pixelCount * spacing.range * spacing.azimuth) / lengthM };
}
