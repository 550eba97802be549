/**
 * Building change's quicklook from the pair tiles' own copy of the later scene
 * (src/analysis/change/quicklookCopy.ts): the blocks the tiles pool — exactly the rows and runs
 * the strided read of the later raster would read (sample.ts stridedPlan) — and the copy turned
 * back into the sampled raster, so the picture is the strided read's without reading the scene again.
 */
import type { AoiGeometry } from '../../geo/types.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import type { BlockGrid, PooledValues } from '../port.ts';
import { MAX_SIDE, stridedPlan, type SampledRaster } from './sample.ts';
import { rasterSource } from './source.ts';

/**
 * Blocks in a copy, at most: (1.5 × 2,048)², ≤ 113 MB of sums and counts — every grid with
 * rowStep ≥ 2 fits (an output pixel under 3 raster pixels: ≤ 1.5 blocks a side per output
 * pixel), e.g. the bench's 4,096² pair (2,050² blocks), where the strided read reads half the
 * lines and decodes every tile. More (rowStep 1 over a large window) keeps the strided read.
 */
const MAX_BLOCKS = Math.floor(1.5 * MAX_SIDE) ** 2;

/**
 * The quicklook's blocks on the later scene's `raster` (band 0: the `polarisation` file) for a
 * picture framing `aoi`: block (k, j) is the strided read's row k, run j — its middle line
 * (lines 1) over runLength columns, the last run cut where the read's window ends. Null when
 * there would be too many.
 */
export function quicklookRasterBlockGrid(raster: RasterProduct, polarisation: string, aoi: AoiGeometry): BlockGrid | null {
  const plan = stridedPlan(rasterSource(raster, 0), aoi);
  if (plan.rows * plan.runs > MAX_BLOCKS || plan.rows === 0) return null;
  const { rowStep, runLength, window } = plan;
  // Block k's middle line (y0 + k·rowStep + ⌊rowStep/2⌋) is the read's row k (firstRow + k·rowStep).
  return { polarisation, y0: window.y0, x0: window.x0, rowStep, runLength, rows: plan.rows, runs: plan.runs, lines: 1, width: window.width };
}

/** True for building change's copy (linear values), false for ship's (DN² sums). */
export function isPooledValues(copy: object | undefined): copy is PooledValues {
  return !!copy && 'sum' in copy;
}

/** The copy as the sampled raster (each block's mean; NaN where it has no value), or null when its steps are not the quicklook's (the strided read then runs). */
export function pooledValuesRaster(pooled: PooledValues, rowStep: number, runLength: number): SampledRaster | null {
  const { grid } = pooled;
  if (grid.rowStep !== rowStep || grid.runLength !== runLength || grid.lines !== 1) return null;
  const data = new Float32Array(grid.rows * grid.runs);
  for (let k = 0; k < data.length; k++) data[k] = pooled.counts[k] ? pooled.sum[k]! / pooled.counts[k]! : Number.NaN;
  return { data, rows: grid.rows, runs: grid.runs, firstRow: grid.y0 + (rowStep >> 1), rowStep, x0: grid.x0, runLength };
}
