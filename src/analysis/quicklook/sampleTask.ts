/**
 * Pool half of a quicklook's strided read: a band of the sampled rows read on a thread of the
 * analysis pool from the product's source (engine/products.ts: the scene the detector's tiles
 * opened there is reused), so the event loop only plans and the rows are read on every thread.
 * The same run reader as the main thread's (source.ts): the same values bit for bit.
 */
import { withOpenedProduct } from '../engine/products.ts';
import type { ProductSource, Sigma0Product } from '../../imagery/sigma0/types.ts';
import { defineThreadTasks } from '../../threads/task.ts';
import { sigma0Source } from './source.ts';

export interface SampleRowsInput {
  source: ProductSource;
  polarisation: string;
  /** Columns x0 … x0 + width − 1, averaged over runs of runLength. */
  x0: number;
  width: number;
  runLength: number;
  /** Source rows first, first + step, … (count of them). */
  first: number;
  step: number;
  count: number;
}

/**
 * The last run reader of each open product on this thread: a quicklook's read is cut into
 * several bands of rows, and a reader resamples the calibration and noise vectors at its run
 * centres when made (tens of ms on a full scene), so the bands after the first reuse it.
 */
const readers = new WeakMap<Sigma0Product, { key: string; read: (row: number) => Promise<Float32Array> }>();

function readerFor(product: Sigma0Product, input: SampleRowsInput): (row: number) => Promise<Float32Array> {
  const key = `${input.polarisation} ${input.x0} ${input.width} ${input.runLength}`;
  const last = readers.get(product);
  if (last?.key === key) return last.read;
  const read = sigma0Source(product, input.polarisation).runReader(input.x0, input.width, input.runLength);
  readers.set(product, { key, read });
  return read;
}

/** The rows' run means, row after row (count × ceil(width / runLength) values). */
export async function sampleRows(input: SampleRowsInput): Promise<Float32Array> {
  return withOpenedProduct(input.source, async (product) => {
    const read = readerFor(product, input);
    const runs = Math.ceil(input.width / input.runLength);
    const out = new Float32Array(input.count * runs);
    for (let k = 0; k < input.count; k++) out.set(await read(input.first + k * input.step), k * runs);
    return out;
  });
}

/** What the analysis pool may run of this module (src/threads/task.ts). */
export const threadTasks = defineThreadTasks(import.meta.url, { sampleRows });
