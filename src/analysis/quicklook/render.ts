/**
 * Worker-thread half of a quicklook (a task of the analysis pool): the sampled source in dB,
 * resampled onto the Mercator grid (nearest sample, one value an output pixel), stretched between the 2nd
 * and 98th percentiles of the output pixels into grey levels; two indexed PNGs with one
 * palette — the overlay (transparent outside the data and the analysed extent) and the
 * quicklook (the same pixels with the AOI's outline and the detections drawn).
 */
import { Canvas, fillRingSpans, type Colour } from '../../raster/canvas.ts';
import { boxMeanInPlace } from '../../raster/boxMean.ts';
import { log10Float32Bits } from '../../raster/log10.ts';
import type { MercatorGrid } from './mercator.ts';
import type { Lattice, SampledRaster } from './sample.ts';
import type { FlatRings } from './vectors.ts';
import { lonLatToMercator } from './mercator.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { encodeRaw, rawImage, rawLength, rawRowStart, type Palette } from './png.ts';

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
  /** The sampled values; its data is the render's working memory (overwritten). */
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

/**
 * Output pixel coordinates (x, y pairs) of every point of `flat`, in one array: each ring is then
 * a view of it (ringsOf), not an array of its own — a building-change result has tens of
 * thousands of rings.
 */
function projectPoints(flat: FlatRings, grid: MercatorGrid): Float64Array {
  const { coords } = flat;
  const out = new Float64Array(coords.length);
  for (let p = 0; p < coords.length; p += 2) {
    const [x, y] = lonLatToMercator(coords[p]!, coords[p + 1]!);
    out[p] = (x - grid.x0) / grid.pixel;
    out[p + 1] = (grid.y0 - y) / grid.pixel;
  }
  return out;
}

/** Rings ringFrom … ringTo − 1 of `flat` as views of its projected points (projectPoints). */
function ringsOf(flat: FlatRings, points: Float64Array, ringFrom: number, ringTo: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let r = ringFrom; r < ringTo; r++) out.push(points.subarray(2 * flat.ringStart[r]!, 2 * flat.ringStart[r + 1]!));
  return out;
}

/** Every ring of `flat` in output pixel coordinates. */
function projectRings(flat: FlatRings, grid: MercatorGrid): Float64Array[] {
  return ringsOf(flat, projectPoints(flat, grid), 0, flat.ringStart.length - 1);
}

/** σ0 floor of the readers (1e-5, src/imagery SIGMA_FLOOR_LINEAR) in dB: values there are below the noise, not a level of the scene. */
const FLOOR_DB = -50;

/** Histogram bins of the stretch: 0.05 dB from −80 dB. */
const HIST_LO = -80;
const HIST_BIN = 0.05;
const HIST_BINS = Math.ceil(120 / HIST_BIN);

/**
 * The output pixels inside `rings` (even-odd, fillRingSpans) as spans [xa, xb) by row: row y's
 * are (spanX[2s], spanX[2s + 1]) for s from rowSpans[y] to rowSpans[y + 1] − 1, never
 * overlapping (fillRingSpans's pairs of sorted crossings). Null rings: every pixel.
 */
function insideSpans(rings: Float64Array[] | null, width: number, height: number): { rowSpans: Int32Array; spanX: Int32Array } {
  const rowSpans = new Int32Array(height + 1);
  if (!rings) {
    const spanX = new Int32Array(2 * height);
    for (let y = 0; y < height; y++) {
      rowSpans[y + 1] = y + 1;
      spanX[2 * y + 1] = width;
    }
    return { rowSpans, spanX };
  }
  const found: number[] = [];
  fillRingSpans(rings, width, height, (y, xa, xb) => {
    found.push(y, xa, xb);
    rowSpans[y + 1]!++;
  });
  for (let y = 0; y < height; y++) rowSpans[y + 1]! += rowSpans[y]!;
  // Each row's spans in the order they came (a counting sort by row).
  const next = rowSpans.slice(0, height);
  const spanX = new Int32Array((2 * found.length) / 3);
  for (let f = 0; f < found.length; f += 3) {
    const s = next[found[f]!]!++;
    spanX[2 * s] = found[f + 1]!;
    spanX[2 * s + 1] = found[f + 2]!;
  }
  return { rowSpans, spanX };
}

/**
 * Each output pixel's value (dB): its source (row, col) from the lattice, bilinear, and the
 * sampled value there (row k = round((row − firstRow) / rowStep), run c = ⌊(col + ½ − x0) /
 * runLength⌋); NaN outside the spans (the analysed extent) and where the source has no sampled
 * value. In the same pass the stretch's histogram: each pixel's value above the floor counted
 * in its 0.05 dB bin (NaN and values at the floor are not). One pass and one output-sized
 * array: the pixels' values are then read in order by the painting, not gathered again from
 * the sampled raster. Written into `out` (width × height).
 */
function resampleValues(
  grid: MercatorGrid,
  lattice: Lattice,
  raster: SampledRaster,
  spans: { rowSpans: Int32Array; spanX: Int32Array },
  out: Float32Array,
): { values: Float32Array; counts: Uint32Array; counted: number } {
  const { width, height } = grid;
  const { step, nx, ny, rows, cols } = lattice;
  const values = out.fill(Number.NaN);
  const counts = new Uint32Array(HIST_BINS);
  let counted = 0;
  const { rowSpans, spanX } = spans;
  const nodeX = (i: number) => Math.min(i * step, width - 1);
  const nodeY = (j: number) => Math.min(j * step, height - 1);
  // The lattice interpolated to the current output row, at every node column.
  const rowAt = new Float64Array(nx);
  const colAt = new Float64Array(nx);
  const { data, firstRow, rowStep, x0, runLength, rows: sampledRows, runs } = raster;
  for (let y = 0; y < height; y++) {
    const s0 = rowSpans[y]!;
    const s1 = rowSpans[y + 1]!;
    if (s0 === s1) continue;
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
    const at = y * width;
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
      for (let s = s0; s < s1; s++) {
        const to = Math.min(last, spanX[2 * s + 1]! - 1);
        for (let x = Math.max(xa, spanX[2 * s]!); x <= to; x++) {
          const row = r0 + (x - xa) * dr;
          const col = c0 + (x - xa) * dc;
          const k = Math.round((row - firstRow) / rowStep);
          const c = Math.floor((col + 0.5 - x0) / runLength);
          if (k < 0 || k >= sampledRows || c < 0 || c >= runs) continue;
          const v = data[k * runs + c]!;
          values[at + x] = v;
          if (!(v > FLOOR_DB + 0.01)) continue;
          counts[Math.max(0, Math.min(HIST_BINS - 1, Math.floor((v - HIST_LO) / HIST_BIN)))]!++;
          counted++;
        }
      }
    }
  }
  return { values, counts, counted };
}

/** The p-th percentiles of the histogram's `counted` values (resampleValues), each its bin's centre. */
function percentiles(counts: Uint32Array, counted: number, ps: readonly number[]): number[] {
  return ps.map((p) => {
    const target = (p / 100) * counted;
    let seen = 0;
    for (let b = 0; b < counts.length; b++) {
      seen += counts[b]!;
      if (seen >= target && seen > 0) return HIST_LO + (b + 0.5) * HIST_BIN;
    }
    return HIST_LO;
  });
}

/**
 * How far the table's dB may be from 10 · Math.log10's, at most, with room to spare: the table
 * and series are good to ~1e-15 in log10, the exponent's term to ~4e-15, Math.log10 itself to
 * an ulp (~7e-15 at 38) — ~2e-13 dB in all.
 */
const DB_SLACK = 1e-9;

/**
 * Linear σ0 to dB in place (NaN where there is no positive value): each value becomes
 * fround(10 · Math.log10(v)), bit for bit, at a fraction of Math.log10's cost (~18 ns a value on
 * this machine, the largest single step of a 5 M-value render): the table's log10
 * (raster/log10.ts log10Float32Bits). That dB is within DB_SLACK of Math.log10's, so where dB ± DB_SLACK round to the same float32 the
 * stored value is Math.log10's; elsewhere (within 1e-9 of a float32 rounding edge: ~0.1 % of
 * values near 20 dB, more within a dB of 0) and for zero, subnormal, infinite or NaN values,
 * Math.log10 itself.
 */
export function toDb(values: Float32Array): void {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = 0; i < values.length; i++) {
    const l = log10Float32Bits(bits[i]!);
    if (l === l) {
      const db = 10 * l;
      if (Math.fround(db - DB_SLACK) === Math.fround(db + DB_SLACK)) {
        values[i] = db;
        continue;
      }
    }
    const v = values[i]!;
    values[i] = v > 0 ? 10 * Math.log10(v) : Number.NaN;
  }
}

/**
 * Grey levels of the pictures: the stretch maps to GREY_LEVELS levels, palette entries 1 …
 * GREY_LEVELS, spread over 0 … 255 (round(q · 255 / (GREY_LEVELS − 1))); entry 0 is
 * transparent and the entries after the greys are the drawing's colours. 252 and not 256
 * levels: an indexed PNG holds 256 colours, and one byte a pixel deflates in a quarter of
 * the time of RGBA — a grey differs by at most one level of 255 from a 256-level stretch.
 */
export const GREY_LEVELS = 252;
/** Palette entries of the drawing: the AOI's outline, then the detections' colour. */
const OUTLINE_ENTRY = GREY_LEVELS + 1;
const DETECTION_ENTRY = GREY_LEVELS + 2;

/** The pictures' palette: transparent, the greys, the outline and the detections' colour. */
function paletteOf(detection: Colour): Palette {
  const rgb = new Uint8Array(3 * (DETECTION_ENTRY + 1));
  for (let q = 0; q < GREY_LEVELS; q++) rgb.fill(Math.round((q * 255) / (GREY_LEVELS - 1)), 3 * (q + 1), 3 * (q + 2));
  rgb.set(OUTLINE_COLOUR.slice(0, 3), 3 * OUTLINE_ENTRY);
  rgb.set(detection.slice(0, 3), 3 * DETECTION_ENTRY);
  return { rgb, alpha: Uint8Array.of(0) };
}

/**
 * The output pixels' palette entries into `raw` (an indexed rawImage): a value (dB, resampleValues)
 * in the stretch lo … hi, 1 + its grey level; 0 (transparent) where there is no value (NaN).
 * Returns how many pixels have a value.
 */
function paint(values: Float32Array, lo: number, hi: number, width: number, height: number, raw: Uint8Array): number {
  const top = GREY_LEVELS - 1;
  let validPixels = 0;
  for (let y = 0; y < height; y++) {
    const o = rawRowStart('indexed', width, y);
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const v = values[i]!;
      if (!Number.isFinite(v)) continue;
      raw[o + x] = 1 + Math.round(Math.max(0, Math.min(1, (v - lo) / (hi - lo))) * top);
      validPixels++;
    }
  }
  return validPixels;
}

/** Canvas drawing into an indexed rawImage: each colour drawn is one palette entry. */
class IndexedCanvas extends Canvas {
  constructor(
    readonly raw: Uint8Array,
    width: number,
    height: number,
    private readonly entries: ReadonlyMap<Colour, number>,
  ) {
    // The RGBA surface of Canvas is not used (every pixel is written by set).
    super(1, 1);
    this.w = width;
    this.h = height;
  }
  private readonly w: number;
  private readonly h: number;

  override set(x: number, y: number, colour: Colour): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.w || y >= this.h) return;
    const entry = this.entries.get(colour);
    if (entry === undefined) throw new Error('a colour the palette has no entry for');
    this.raw[rawRowStart('indexed', this.w, y) + x] = entry;
  }
}

/**
 * A 3 × 3 mean of the sampled values (linear) where they are data, over the values themselves
 * (boxMeanInPlace: boxMean's means bit for bit, without its raster-sized row sums and output);
 * the validity mask in `spare` when it fits (memory not yet in use).
 */
function smoothInPlace(raster: SampledRaster, spare: ArrayBuffer): void {
  const { data, rows, runs } = raster;
  // A plain loop: Uint8Array.from with a mapping function takes seconds on a 2,048² raster.
  const valid = data.length <= spare.byteLength ? new Uint8Array(spare, 0, data.length) : new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) valid[i] = data[i]! > 0 ? 1 : 0;
  boxMeanInPlace(data, valid, runs, rows, 1, 1);
}

export async function renderQuicklook(input: RenderQuicklookInput): Promise<RenderedQuicklook> {
  const { grid, style } = input;
  const { width, height } = grid;
  // Near the source's own resolution (a polygon job) each value is one to a few pixels of
  // speckle: a 3 × 3 mean (linear) keeps it from filling the stretch. A whole scene's values
  // already average runs of ten or more pixels.
  // Working memory: a fresh array's first touch costs more than the arithmetic on it (page
  // faults: ~3 ms CPU a MB on this machine under load, measured on a 21 MB array), so the render
  // allocates one output-sized array (each pixel's value) and reuses it and the sampled
  // raster's own buffer: the validity mask of the 3 × 3 mean in the first before the pixels'
  // values are written, the overlay's rows in the second once it has been resampled, the
  // quicklook's rows in the first once the values are painted.
  const pixels = new Float32Array(width * height);
  if (input.raster.runLength < SMOOTH_BELOW_RUN) smoothInPlace(input.raster, pixels.buffer);
  // dB on the sampled raster, once a value; then each output pixel's value and the stretch's
  // histogram in one pass.
  const db = input.raster.data;
  toDb(db);
  const extent = input.extent ? projectRings(input.extent, grid) : null;
  const { values, counts, counted } = resampleValues(grid, input.lattice, input.raster, insideSpans(extent, width, height), pixels);

  const [lo, hi0] = percentiles(counts, counted, STRETCH_PERCENTILES);
  const hi = Math.max(hi0!, lo! + 1);
  // Both pictures indexed (one byte a pixel) with the same palette; no row filter, fastest
  // deflate (png.ts): on speckle the adaptive filters and higher levels gain little size for
  // 4× the time. The overlay is compressed while the quicklook (its copy) is drawn on.
  const palette = paletteOf(style.colour);
  const bytes = rawLength('indexed', width, height);
  const overlayRaw = db.byteLength >= bytes ? new Uint8Array(db.buffer, db.byteOffset, bytes).fill(0) : rawImage('indexed', width, height);
  const validPixels = paint(values, lo!, hi, width, height, overlayRaw);
  const quicklookRaw = new Uint8Array(pixels.buffer, 0, bytes);
  quicklookRaw.set(overlayRaw);
  const overlay = encodeRaw(overlayRaw, 'indexed', width, height, palette);

  const canvas = new IndexedCanvas(quicklookRaw, width, height, new Map([[OUTLINE_COLOUR, OUTLINE_ENTRY], [style.colour, DETECTION_ENTRY]]));
  if (input.outline) for (const ring of projectRings(input.outline, grid)) canvas.ringOutline(ring, 1, OUTLINE_COLOUR);
  const { detections } = input;
  const points = projectPoints(detections, grid);
  const features = detections.featureStart.length - 1;
  for (let f = 0; f < features; f++) {
    const rings = ringsOf(detections, points, detections.featureStart[f]!, detections.featureStart[f + 1]!);
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
  const [quicklook, overlayPng] = await Promise.all([encodeRaw(quicklookRaw, 'indexed', width, height, palette), overlay]);
  return { quicklook, overlay: overlayPng, stretchDb: [lo!, hi], validPixels };
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { renderQuicklook });
