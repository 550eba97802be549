/**
 * Pool half of a quicklook's strided read: a band of the sampled rows read on a thread of the
 * analysis pool from the product's source or the raster's file (engine/products.ts: a scene the
 * detector's tiles opened there is reused), so the event loop only plans and the rows are read on every thread.
 * The same run reader as the main thread's (source.ts): the same values bit for bit.
 */
import { withOpenedProduct, withOpenedRasters } from '../engine/products.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { rasterSource, sigma0Source, type PooledSource, type QuicklookSource } from './source.ts';

export type SampleRowsInput = PooledSource & {
  /** Columns x0 … x0 + width − 1, averaged over runs of runLength. */
  x0: number;
  width: number;
  runLength: number;
  /** Source rows first, first + step, … (count of them). */
  first: number;
  step: number;
  count: number;
};

/**
 * The last run reader of each open product on this thread: a quicklook's read is cut into
 * several bands of rows, and a reader resamples the calibration and noise vectors at its run
 * centres when made (tens of ms on a full scene), so the bands after the first reuse it.
 */
const readers = new WeakMap<object, { key: string; read: (row: number) => Promise<Float32Array> }>();

function readerFor(opened: object, input: SampleRowsInput, make: () => QuicklookSource): (row: number) => Promise<Float32Array> {
  const key = `${input.kind === 'sigma0' ? input.polarisation : input.band} ${input.x0} ${input.width} ${input.runLength}`;
  const last = readers.get(opened);
  if (last?.key === key) return last.read;
  const read = make().runReader(input.x0, input.width, input.runLength);
  readers.set(opened, { key, read });
  return read;
}

async function readRows(read: (row: number) => Promise<Float32Array>, input: SampleRowsInput): Promise<Float32Array> {
  const runs = Math.ceil(input.width / input.runLength);
  const out = new Float32Array(input.count * runs);
  for (let k = 0; k < input.count; k++) out.set(await read(input.first + k * input.step), k * runs);
  return out;
}

/** The rows' run means, row after row (count × ceil(width / runLength) values). */
export async function sampleRows(input: SampleRowsInput): Promise<Float32Array> {
  if (input.kind === 'raster') {
    return withOpenedRasters([input.path], ([raster]) => readRows(readerFor(raster!, input, () => rasterSource(raster!, input.band)), input));
  }
  const { polarisation } = input;
  return withOpenedProduct(input.source, (product) => readRows(readerFor(product, input, () => sigma0Source(product, polarisation)), input));
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { sampleRows });
