/** SceneCatalog over a local archive folder indexed into a SceneIndexStore. */
import type { SceneCatalog, SceneIndexStore } from '../port.ts';
import { productKey, sceneIdFromPath, tryParseProductName } from '../productName.ts';
import { compareScenes, dedupePasses, matchesQuery, preferredVersion } from '../query.ts';
import type { SceneQuery, SceneRecord } from '../types.ts';
import { indexArchive, type IndexArchiveOptions, type IndexArchiveResult } from './indexArchive.ts';

export class LocalSceneCatalog implements SceneCatalog {
  constructor(
    readonly store: SceneIndexStore,
    /** The archive folder `reindex()` walks. */
    readonly archiveDir?: string,
  ) {}

  /** Brings the index up to date with the archive folder (incremental). */
  reindex(options?: IndexArchiveOptions): Promise<IndexArchiveResult> {
    if (!this.archiveDir) throw new Error('LocalSceneCatalog has no archive folder to index');
    return indexArchive(this.archiveDir, this.store, options);
  }

  async search(q: SceneQuery): Promise<SceneRecord[]> {
    const { limit, ...rest } = q;
    const coarse = await this.store.search(rest);
    const exact = coarse.filter((r) => matchesQuery(r, rest, true));
    const out = dedupePasses(exact).sort(compareScenes);
    return limit !== undefined ? out.slice(0, limit) : out;
  }

  async get(sceneId: string): Promise<SceneRecord | null> {
    const id = sceneIdFromPath(sceneId.trim());
    const direct = await this.store.get(id);
    if (direct) return direct;
    // Same product under another unique id, or asked for without one: match on the
    // product key among scenes that started within a second of the name's start time.
    const name = tryParseProductName(id);
    if (!name) return null;
    const key = productKey(name);
    const near = await this.store.search({
      start: new Date(name.start.getTime() - 1000),
      end: new Date(name.start.getTime() + 1999),
    });
    const matches = near.filter((r) => {
      const n = tryParseProductName(r.sceneId);
      return n !== null && productKey(n) === key;
    });
    if (matches.length === 0) return null;
    // Another version (NRT / Fast / reprocessed) of the same acquisition: the best one.
    return matches.reduce((a, b) => preferredVersion(a, b));
  }
}
