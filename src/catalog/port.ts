/**
 * The SceneCatalog port (DESIGN: one of four ports) and the persistence the local adapter
 * needs. Adapters: LocalSceneCatalog (an archive folder indexed into a SceneIndexStore) and
 * StacSceneCatalog (any STAC API).
 */
import type { IndexedFile, SceneQuery, SceneRecord } from './types.ts';

export interface SceneCatalog {
  /**
   * Scenes matching every given criterion, sorted by start time (then scene id). Duplicates
   * of one pass (NRT / Fast / standard versions) are reduced to the best one.
   * Throws CatalogError when the catalog cannot be reached.
   */
  search(q: SceneQuery): Promise<SceneRecord[]>;
  /**
   * One scene by id. Accepts a product name with or without its 4-character unique id and
   * with a `.SAFE` / `.zip` suffix. null when the catalog does not know it.
   */
  get(sceneId: string): Promise<SceneRecord | null>;
}

/**
 * What the local adapter persists. Files and scenes are many-to-many (a VV and a VH
 * GeoTIFF make one RTC scene); a scene lives as long as at least one indexed file
 * references it.
 */
export interface SceneIndexStore {
  /**
   * Inserts or replaces the given scenes (by sceneId) and the rows of the given files
   * (by path, with the scene ids each contributes to), then deletes every scene that no
   * file row references any more. One transaction.
   */
  upsertScenes(records: SceneRecord[], files: IndexedFile[]): Promise<void>;
  /** Deletes the rows of these files, then every scene no file row references. One transaction. */
  removeByPaths(paths: string[]): Promise<void>;
  /** Every file row, with the scene ids it contributes to. */
  listIndexedFiles(): Promise<IndexedFile[]>;
  /**
   * Scenes matching the query, sorted by start time then scene id. A store may match
   * `intersects` on bounding boxes only, and may then ignore `limit` (it would cut before
   * the exact test): LocalSceneCatalog refines with the exact footprint and passes no limit.
   */
  search(q: SceneQuery): Promise<SceneRecord[]>;
  /** One scene by exact sceneId. */
  get(sceneId: string): Promise<SceneRecord | null>;
}

export type CatalogErrorCode = 'CATALOG_UNAVAILABLE';

/** The catalog could not answer (network error, timeout, bad response). Server-class job failure. */
export class CatalogError extends Error {
  readonly code: CatalogErrorCode = 'CATALOG_UNAVAILABLE';
  constructor(
    message: string,
    /** 'timeout' | 'http' | 'network' | 'response': why, for logs and the preview's fallback. */
    readonly reason: 'timeout' | 'http' | 'network' | 'response',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CatalogError';
  }
}
