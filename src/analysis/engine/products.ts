/**
 * The products a thread of the analysis pool has open, by their source: a tile task that reads
 * its own pixels opens the scene (product.source) or the rasters (a change pair's sources) once
 * per thread and reuses them for the thread's next tiles. What is open is never closed while a
 * task uses it; once unused, at most MAX_OPEN stay open (the least recently used is closed
 * first), each for IDLE_MS, so a thread holds no file of a finished job for long.
 */
import type { RasterSource } from '../../imagery/geocode/source.ts';
import type { RasterProduct } from '../../imagery/rtc/raster.ts';
import type { ProductSource, Sigma0Product } from '../../imagery/sigma0/types.ts';

// The readers load on a thread's first scene tile, not with this module: threads that run
// only tasks given their pixels do not load geotiff and the S3 client.
const openProductSource = async (source: ProductSource): Promise<Sigma0Product> => (await import('../../imagery/source.ts')).openProductSource(source);
const openRasterSources = async (sources: readonly RasterSource[]): Promise<RasterProduct[]> =>
  (await import('../../imagery/geocode/source.ts')).openRasterSources(sources);

const MAX_OPEN = 2;
const IDLE_MS = 30_000;

interface Entry {
  opened: Promise<unknown>;
  close: () => Promise<void>;
  users: number;
  timer: NodeJS.Timeout | null;
}

const open = new Map<string, Entry>();

function close(key: string, entry: Entry): Promise<void> {
  if (open.get(key) === entry) open.delete(key);
  if (entry.timer) clearTimeout(entry.timer);
  return entry.close().catch(() => {});
}

/** Closes unused entries beyond MAX_OPEN, least recently used first. */
function trim(): void {
  for (const [k, e] of open) {
    if (open.size <= MAX_OPEN) break;
    if (e.users === 0) void close(k, e);
  }
}

/** Runs `use` on what `key` names, opened by `openIt` on this thread (or reused); it stays open while `use` runs. */
async function withOpened<T, O>(key: string, openIt: () => Promise<O>, closeIt: (opened: O) => Promise<unknown>, use: (opened: O) => Promise<T>): Promise<T> {
  let entry = open.get(key);
  if (entry) {
    open.delete(key); // re-inserted below: the Map's order is the use order
  } else {
    const opened = openIt();
    const fresh: Entry = { opened, close: () => opened.then(closeIt).then(() => undefined), users: 0, timer: null };
    // A failed open is not kept: the next tile tries again (and reports its own error).
    opened.catch(() => open.get(key) === fresh && open.delete(key));
    entry = fresh;
  }
  open.set(key, entry);
  if (entry.timer) clearTimeout(entry.timer);
  entry.timer = null;
  entry.users++;
  try {
    return await use((await entry.opened) as O);
  } finally {
    entry.users--;
    if (entry.users === 0 && open.get(key) === entry) {
      const idle = entry;
      entry.timer = setTimeout(() => void close(key, idle), IDLE_MS).unref();
    }
    trim();
  }
}

/** Runs `use` on the product `source` describes, opened on this thread (or reused); the product stays open while `use` runs. */
export function withOpenedProduct<T>(source: ProductSource, use: (product: Sigma0Product) => Promise<T>): Promise<T> {
  return withOpened(`product ${JSON.stringify(source)}`, () => openProductSource(source), (p) => p.close(), use);
}

/** Runs `use` on the rasters `sources` describe, opened together on this thread as imagery's openRasterSources opens them (or reused). */
export function withOpenedRasters<T>(sources: readonly RasterSource[], use: (rasters: RasterProduct[]) => Promise<T>): Promise<T> {
  return withOpened(`rasters ${JSON.stringify(sources)}`, () => openRasterSources(sources), (rs) => Promise.all(rs.map((r) => r.close())), use);
}

/** Closes everything this thread has open (tests). */
export async function closeOpenedProducts(): Promise<void> {
  await Promise.all([...open.entries()].map(([k, e]) => close(k, e)));
}
