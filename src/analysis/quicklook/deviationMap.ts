/**
 * A time-series job's quicklook: its cells filled with the colour of their deviation class
 * (src/analysis/timeseries/style.ts, the result's own simplestyle fill), on the Mercator grid,
 * with the AOI's outline and a legend below. Drawn on the calling thread between event-loop
 * turns (a few hundred cells at a time), not on the analysis pool: the series detector uses no
 * pool thread, and starting one (a Node worker's boot, ~0.45 CPU s on this machine) cost several
 * times the drawing (~0.05 CPU s) — most of the map's share of the job (docs/quicklook.md, Cost).
 * The deflate runs on libuv's pool (png.ts).
 */
import { Canvas, textWidth, type Colour } from '../../raster/canvas.ts';
import type { MercatorGrid } from './mercator.ts';
import { lonLatToMercator } from './mercator.ts';
import type { FlatRings } from './vectors.ts';
import { encodePng } from './png.ts';

export interface DeviationLegendClass {
  colour: Colour;
  /** Label at the class's right edge (the bound between it and the next), '' for the last. */
  upper: string;
}

export interface RenderDeviationMapInput {
  grid: MercatorGrid;
  cells: FlatRings;
  /** RGB per cell, 3 bytes each, in cell order. */
  fills: Uint8Array;
  /** Draw cell outlines (when cells are large enough on the map to see them). */
  outlines: boolean;
  aoi: FlatRings | null;
  /** The diverging classes, darkest-blue to darkest-red, and the no-value colour. */
  classes: DeviationLegendClass[];
  noValue: Colour;
  /** Lines under the legend's title, e.g. the last date and the cell count. */
  notes: string[];
}

const INK: Colour = [30, 30, 30];
const CELL_OUTLINE: Colour = [99, 99, 99];
const BACKGROUND: Colour = [255, 255, 255, 255];
/** The map's upper-left corner is at (MARGIN, MARGIN) of the picture; the legend is below it. */
export const MARGIN = 12;
const SWATCH = { width: 44, height: 16 };

function ringsInPixels(flat: FlatRings, grid: MercatorGrid, dx: number, dy: number, from: number, to: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let r = from; r < to; r++) {
    const a = flat.ringStart[r]!;
    const b = flat.ringStart[r + 1]!;
    const ring = new Float64Array(2 * (b - a));
    for (let p = a; p < b; p++) {
      const [x, y] = lonLatToMercator(flat.coords[2 * p]!, flat.coords[2 * p + 1]!);
      ring[2 * (p - a)] = dx + (x - grid.x0) / grid.pixel;
      ring[2 * (p - a) + 1] = dy + (grid.y0 - y) / grid.pixel;
    }
    out.push(ring);
  }
  return out;
}

/** Cells filled between two event-loop turns: ~5 ms of drawing on this machine at the bench's cell size. */
const CELLS_PER_TURN = 256;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** The deviation map as PNG bytes (RGB), drawn on this thread, letting the event loop run between batches of cells. */
export async function renderDeviationMap(input: RenderDeviationMapInput, signal?: AbortSignal): Promise<Uint8Array> {
  const { grid, cells, classes } = input;
  const title = 'DEVIATION OF THE LAST DATE FROM THE MOVING AVERAGE (IN MOVING STD)';
  const legendWidth = Math.max(textWidth(title), classes.length * SWATCH.width + MARGIN + SWATCH.width + textWidth(' NO VALUE'), ...input.notes.map(textWidth));
  const width = Math.max(grid.width, legendWidth) + 2 * MARGIN;
  const legendTop = MARGIN + grid.height + MARGIN;
  const height = legendTop + 14 + SWATCH.height + 14 + 12 * input.notes.length + MARGIN;
  const canvas = new Canvas(width, height, BACKGROUND);
  const dx = MARGIN;
  const dy = MARGIN;

  const count = cells.featureStart.length - 1;
  for (let f = 0; f < count; f++) {
    if (f % CELLS_PER_TURN === CELLS_PER_TURN - 1) {
      await yieldToLoop();
      signal?.throwIfAborted();
    }
    const rings = ringsInPixels(cells, grid, dx, dy, cells.featureStart[f]!, cells.featureStart[f + 1]!);
    const fill: Colour = [input.fills[3 * f]!, input.fills[3 * f + 1]!, input.fills[3 * f + 2]!];
    canvas.fillRings(rings, fill);
    if (input.outlines) for (const ring of rings) canvas.ringOutline(ring, 1, CELL_OUTLINE);
  }
  if (input.aoi) for (const ring of ringsInPixels(input.aoi, grid, dx, dy, 0, input.aoi.ringStart.length - 1)) canvas.ringOutline(ring, 2, INK);

  // Legend: the title, the classes as a colour bar with their bounds under the joins, then the no-value swatch.
  canvas.text(MARGIN, legendTop, title, INK);
  const barTop = legendTop + 14;
  classes.forEach((c, k) => {
    const x = MARGIN + k * SWATCH.width;
    canvas.fillRings([Float64Array.of(x, barTop, x + SWATCH.width, barTop, x + SWATCH.width, barTop + SWATCH.height, x, barTop + SWATCH.height)], c.colour);
    canvas.ringOutline(Float64Array.of(x, barTop, x + SWATCH.width - 1, barTop, x + SWATCH.width - 1, barTop + SWATCH.height - 1, x, barTop + SWATCH.height - 1), 1, CELL_OUTLINE);
    if (c.upper) canvas.text(x + SWATCH.width - textWidth(c.upper) / 2, barTop + SWATCH.height + 4, c.upper, INK);
  });
  const nx = MARGIN + classes.length * SWATCH.width + MARGIN;
  canvas.fillRings([Float64Array.of(nx, barTop, nx + SWATCH.width, barTop, nx + SWATCH.width, barTop + SWATCH.height, nx, barTop + SWATCH.height)], input.noValue);
  canvas.text(nx + SWATCH.width + 6, barTop + 5, 'NO VALUE', INK);
  input.notes.forEach((note, i) => canvas.text(MARGIN, barTop + SWATCH.height + 18 + 12 * i, note, INK));
  // Opaque throughout (a white background): RGB by the module's PNG writer (png.ts), not pngjs's per-pixel packing.
  return encodePng(canvas.data, width, height, { opaque: true });
}
