/**
 * The products a thread of the analysis pool has open, by their source (product.source): a
 * tile task that reads its own pixels opens the scene once per thread and reuses it for the
 * thread's next tiles. A product is never closed while a task uses it; once unused, at most
 * MAX_OPEN stay open (the least recently used is closed first), each for IDLE_MS, so a thread
 * holds no file of a finished job for long.
 */
import type { ProductSource, Sigma0Product } from '../../imagery/sigma0/types.ts';

// The readers load on a thread's first scene tile, not with the task table: threads that run
// only tasks given their pixels do not load geotiff and the S3 client.
const openProductSource = async (source: ProductSource): Promise<Sigma0Product> => (await import('../../imagery/source.ts')).openProductSource(source);

const MAX_OPEN = 2;
const IDLE_MS = 30_000;

interface Entry {
  product: Promise<Sigma0Product>;
  users: number;
  timer: NodeJS.Timeout | null;
}

const open = new Map<string, Entry>();

function close(key: string, entry: Entry): void {
  if (open.get(key) === entry) open.delete(key);
  if (entry.timer) clearTimeout(entry.timer);
  entry.product.then((p) => p.close()).catch(() => {});
}

/** Closes unused products beyond MAX_OPEN, least recently used first. */
function trim(): void {
  for (const [k, e] of open) {
    if (open.size <= MAX_OPEN) break;
    if (e.users === 0) close(k, e);
  }
}

/** Runs `use` on the product `source` describes, opened on this thread (or reused); the product stays open while `use` runs. */
export async function withOpenedProduct<T>(source: ProductSource, use: (product: Sigma0Product) => Promise<T>): Promise<T> {
  const key = JSON.stringify(source);
  let entry = open.get(key);
  if (entry) {
    open.delete(key); // re-inserted below: the Map's order is the use order
  } else {
    const fresh: Entry = { product: openProductSource(source), users: 0, timer: null };
    // A failed open is not kept: the next tile tries again (and reports its own error).
    fresh.product.catch(() => open.get(key) === fresh && open.delete(key));
    entry = fresh;
  }
  open.set(key, entry);
  if (entry.timer) clearTimeout(entry.timer);
  entry.timer = null;
  entry.users++;
  try {
    return await use(await entry.product);
  } finally {
    entry.users--;
    if (entry.users === 0 && open.get(key) === entry) {
      const idle = entry;
      entry.timer = setTimeout(() => close(key, idle), IDLE_MS).unref();
    }
    trim();
  }
}

/** Closes every product this thread has open (tests). */
export async function closeOpenedProducts(): Promise<void> {
  const entries = [...open.entries()];
  for (const [k, e] of entries) close(k, e);
  await Promise.all(entries.map(([, e]) => e.product.then((p) => p.close()).catch(() => {})));
}
