/**
 * Worker-thread half of a quicklook (a task of the analysis pool): the sampled source
 * resampled onto the Mercator grid, in dB, stretched between its 2nd and 98th percentiles,
 * as two PNGs — the overlay (transparent outside the data and the analysed extent) and the
 * quicklook (the same pixels with the AOI's outline and the detections drawn).
 */
import { Canvas, fillRingSpans, type Colour } from '../../raster/canvas.ts';
import { boxMean } from '../../raster/boxMean.ts';
import type { MercatorGrid } from './mercator.ts';
import type { Lattice, SampledRaster } from './sample.ts';
import type { FlatRings } from './vectors.ts';
import { lonLatToMercator } from './mercator.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { encodePng } from './png.ts';

export interface DetectionStyle {
  colour: Colour;
  /** Outline width in pixels. */
  width: number;
  /** Also a square marker around each feature (ships: a few pixels long at this scale). */
  marker: boolean;
}

export interface RenderQuicklookInput {
  grid: MercatorGrid;
  lattice: Lattice;
  raster: SampledRaster;
  /** The analysed extent (the AOI ∩ the imagery): the overlay is transparent outside it. Null: the whole image. */
  extent: FlatRings | null;
  /** The job's AOI, outlined on the quicklook. */
  outline: FlatRings | null;
  detections: FlatRings;
  style: DetectionStyle;
}

export interface RenderedQuicklook {
  quicklook: Uint8Array;
  overlay: Uint8Array;
  /** The stretch: dB mapped to black and to white. */
  stretchDb: [number, number];
  /** Output pixels with data. */
  validPixels: number;
}

/** The AOI's outline on the quicklook. */
const OUTLINE_COLOUR: Colour = [120, 255, 120];
/** Sampled values averaging fewer pixels than this along their line get a 3 × 3 mean before display. */
const SMOOTH_BELOW_RUN = 4;
/** Percentiles of the valid pixels' dB mapped to black and white. */
export const STRETCH_PERCENTILES: [number, number] = [2, 98];

/** Output pixel coordinates of every ring, as x, y pairs. */
function projectRings(flat: FlatRings, grid: MercatorGrid, ringFrom: number, ringTo: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let r = ringFrom; r < ringTo; r++) {
    const a = flat.ringStart[r]!;
    const b = flat.ringStart[r + 1]!;
    const ring = new Float64Array(2 * (b - a));
    for (let p = a; p < b; p++) {
      const [x, y] = lonLatToMercator(flat.coords[2 * p]!, flat.coords[2 * p + 1]!);
      ring[2 * (p - a)] = (x - grid.x0) / grid.pixel;
      ring[2 * (p - a) + 1] = (grid.y0 - y) / grid.pixel;
    }
    out.push(ring);
  }
  return out;
}

/** Source (row, col) of every output pixel from the lattice, bilinear; then the sampled value (NaN where none). */
function resample(grid: MercatorGrid, lattice: Lattice, raster: SampledRaster): Float32Array {
  const { width, height } = grid;
  const { step, nx, ny, rows, cols } = lattice;
  const out = new Float32Array(width * height).fill(Number.NaN);
  const nodeX = (i: number) => Math.min(i * step, width - 1);
  const nodeY = (j: number) => Math.min(j * step, height - 1);
  // The lattice interpolated to the current output row, at every node column.
  const rowAt = new Float64Array(nx);
  const colAt = new Float64Array(nx);
  const { firstRow, rowStep, x0, runLength, rows: sampledRows, runs, data } = raster;
  for (let y = 0; y < height; y++) {
    const j = ny > 1 ? Math.min(Math.floor(y / step), ny - 2) : 0;
    const ya = nodeY(j);
    const yb = ny > 1 ? nodeY(j + 1) : ya;
    const ty = yb > ya ? (y - ya) / (yb - ya) : 0;
    for (let i = 0; i < nx; i++) {
      const k0 = j * nx + i;
      const k1 = ny > 1 ? k0 + nx : k0;
      rowAt[i] = rows[k0]! + ty * (rows[k1]! - rows[k0]!);
      colAt[i] = cols[k0]! + ty * (cols[k1]! - cols[k0]!);
    }
    // Along the row, linear between node columns: one addition per pixel.
    for (let i = 0; i < Math.max(1, nx - 1); i++) {
      const xa = nodeX(i);
      const xb = nx > 1 ? nodeX(i + 1) : width - 1;
      const last = i === nx - 2 || nx === 1 ? xb : xb - 1;
      const r0 = rowAt[i]!;
      const c0 = colAt[i]!;
      const span = xb - xa;
      const dr = span > 0 && nx > 1 ? (rowAt[i + 1]! - r0) / span : 0;
      const dc = span > 0 && nx > 1 ? (colAt[i + 1]! - c0) / span : 0;
      if (!Number.isFinite(r0 + dr + c0 + dc)) continue;
      const at = y * width;
      for (let x = xa; x <= last; x++) {
        const row = r0 + (x - xa) * dr;
        const col = c0 + (x - xa) * dc;
        const k = Math.round((row - firstRow) / rowStep);
        const c = Math.floor((col + 0.5 - x0) / runLength);
        if (k < 0 || k >= sampledRows || c < 0 || c >= runs) continue;
        out[at + x] = data[k * runs + c]!;
      }
    }
  }
  return out;
}

/** σ0 floor of the readers (1e-5, src/imagery SIGMA_FLOOR_LINEAR) in dB: values there are below the noise, not a level of the scene. */
const FLOOR_DB = -50;

/** The p-th percentiles of the finite values above the floor (0.05 dB bins). */
function percentiles(db: Float32Array, ps: readonly number[]): number[] {
  const lo = -80;
  const bin = 0.05;
  const counts = new Uint32Array(Math.ceil(120 / bin));
  let n = 0;
  for (let i = 0; i < db.length; i++) {
    const v = db[i]!;
    if (!(v > FLOOR_DB + 0.01)) continue;
    counts[Math.max(0, Math.min(counts.length - 1, Math.floor((v - lo) / bin)))]!++;
    n++;
  }
  return ps.map((p) => {
    const target = (p / 100) * n;
    let seen = 0;
    for (let b = 0; b < counts.length; b++) {
      seen += counts[b]!;
      if (seen >= target && seen > 0) return lo + (b + 0.5) * bin;
    }
    return lo;
  });
}

export async function renderQuicklook(input: RenderQuicklookInput): Promise<RenderedQuicklook> {
  const { grid, style } = input;
  const { width, height } = grid;
  // Near the source's own resolution (a polygon job) each value is one to a few pixels of
  // speckle: a 3 × 3 mean (linear) keeps it from filling the stretch. A whole scene's values
  // already average runs of ten or more pixels.
  const { rows, runs, runLength } = input.raster;
  if (runLength < SMOOTH_BELOW_RUN) {
    // A plain loop: Uint8Array.from with a mapping function takes seconds on a 2,048² raster.
    const data = input.raster.data;
    const valid = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i++) valid[i] = data[i]! > 0 ? 1 : 0;
    input.raster.data = boxMean(input.raster.data, valid, runs, rows, 1, 1);
  }
  // dB on the sampled raster (fewer values than the output grid), then resampled.
  const sampled = input.raster.data;
  for (let i = 0; i < sampled.length; i++) {
    const v = sampled[i]!;
    sampled[i] = v > 0 ? 10 * Math.log10(v) : Number.NaN;
  }
  const db = resample(grid, input.lattice, input.raster);

  const extentRings = input.extent ? projectRings(input.extent, grid, 0, input.extent.ringStart.length - 1) : null;
  if (extentRings) {
    const inside = new Uint8Array(width * height);
    fillRingSpans(extentRings, width, height, (y, xa, xb) => inside.fill(1, y * width + xa, y * width + xb));
    for (let i = 0; i < db.length; i++) if (!inside[i]) db[i] = Number.NaN;
  }

  const [lo, hi0] = percentiles(db, STRETCH_PERCENTILES);
  const hi = Math.max(hi0!, lo! + 1);
  const canvas = new Canvas(width, height);
  const rgba = canvas.data;
  let validPixels = 0;
  for (let i = 0; i < db.length; i++) {
    const v = db[i]!;
    if (!Number.isFinite(v)) continue;
    const g = Math.round(Math.max(0, Math.min(1, (v - lo!) / (hi - lo!))) * 255);
    rgba[4 * i] = g;
    rgba[4 * i + 1] = g;
    rgba[4 * i + 2] = g;
    rgba[4 * i + 3] = 255;
    validPixels++;
  }
  // No row filter, fastest deflate (png.ts): on speckle the adaptive filters and higher levels
  // gain little size (2.3 vs 2.5 MB at 2048 × 1652) for 4× the time. The overlay is all grey:
  // written as grey + alpha, and compressed while the detections are drawn (then beside the quicklook).
  const overlay = encodePng(canvas.data, width, height, { grey: true });

  if (input.outline) for (const ring of projectRings(input.outline, grid, 0, input.outline.ringStart.length - 1)) canvas.ringOutline(ring, 1, OUTLINE_COLOUR);
  const { detections } = input;
  const features = detections.featureStart.length - 1;
  for (let f = 0; f < features; f++) {
    const rings = projectRings(detections, grid, detections.featureStart[f]!, detections.featureStart[f + 1]!);
    for (const ring of rings) canvas.ringOutline(ring, style.width, style.colour);
    const exterior = rings[0];
    if (style.marker && exterior && exterior.length >= 2) {
      let sx = 0;
      let sy = 0;
      for (let p = 0; p < exterior.length; p += 2) {
        sx += exterior[p]!;
        sy += exterior[p + 1]!;
      }
      const n = exterior.length / 2;
      canvas.squareOutline(sx / n, sy / n, 6, 2, style.colour);
    }
  }
  const [quicklook, overlayPng] = await Promise.all([encodePng(canvas.data, width, height), overlay]);
  return { quicklook, overlay: overlayPng, stretchDb: [lo!, hi], validPixels };
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { renderQuicklook });
