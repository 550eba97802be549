/**
 * In-memory SceneIndexStore: the reference implementation of the interface's semantics
 * (tests, demos). The SQL stores follow it statement for statement.
 */
import type { SceneIndexStore } from './port.ts';
import { compareScenes, matchesQuery } from './query.ts';
import type { IndexedFile, SceneQuery, SceneRecord } from './types.ts';

export class MemorySceneIndexStore implements SceneIndexStore {
  private readonly scenes = new Map<string, SceneRecord>();
  private readonly files = new Map<string, IndexedFile>();

  async upsertScenes(records: SceneRecord[], files: IndexedFile[]): Promise<void> {
    for (const r of records) this.scenes.set(r.sceneId, structuredClone(r));
    for (const f of files) this.files.set(f.path, { ...f, sceneIds: [...f.sceneIds] });
    this.pruneOrphans();
  }

  async removeByPaths(paths: string[]): Promise<void> {
    for (const p of paths) this.files.delete(p);
    this.pruneOrphans();
  }

  async listIndexedFiles(): Promise<IndexedFile[]> {
    return [...this.files.values()].map((f) => ({ ...f, sceneIds: [...f.sceneIds] }));
  }

  async search(q: SceneQuery): Promise<SceneRecord[]> {
    const out = [...this.scenes.values()].filter((r) => matchesQuery(r, q, false)).sort(compareScenes);
    const limited = q.limit !== undefined ? out.slice(0, q.limit) : out;
    return limited.map((r) => structuredClone(r));
  }

  async get(sceneId: string): Promise<SceneRecord | null> {
    const r = this.scenes.get(sceneId);
    return r ? structuredClone(r) : null;
  }

  /** Number of scenes held (tests). */
  get size(): number {
    return this.scenes.size;
  }

  private pruneOrphans(): void {
    const referenced = new Set<string>();
    for (const f of this.files.values()) for (const id of f.sceneIds) referenced.add(id);
    for (const id of [...this.scenes.keys()]) if (!referenced.has(id)) this.scenes.delete(id);
  }
}
