/**
 * The local catalog's SceneIndexStore on the SQL store (SQLite or PostgreSQL). Semantics
 * follow MemorySceneIndexStore: bbox-level spatial filtering here, exact footprint
 * intersection in the catalog; orphaned scenes are removed in the same transaction.
 */
import type { Db } from './index.ts';
import type { SceneIndexStore } from '../catalog/port.ts';
import type { IndexedFile, SceneQuery, SceneRecord } from '../catalog/types.ts';
import { bboxOf } from '../geo/index.ts';

export class SqlSceneIndexStore implements SceneIndexStore {
  constructor(private readonly db: Db) {}

  async upsertScenes(records: SceneRecord[], files: IndexedFile[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      for (const r of records) {
        const [minLon, minLat, maxLon, maxLat] = bboxOf(r.footprint) as number[];
        const row = {
          scene_id: r.sceneId,
          product_type: r.productType,
          orbit_direction: r.orbitDirection,
          start_time: r.startTime,
          min_lon: minLon,
          min_lat: minLat,
          max_lon: maxLon,
          max_lat: maxLat,
          record: JSON.stringify(r),
        };
        await tx
          .insertInto('scenes')
          .values(row)
          .onConflict((oc) => oc.column('scene_id').doUpdateSet(row))
          .execute();
      }
      for (const f of files) {
        const row = { path: f.path, mtime_ms: f.mtimeMs, size: f.size, scene_ids: JSON.stringify(f.sceneIds) };
        await tx
          .insertInto('catalog_files')
          .values(row)
          .onConflict((oc) => oc.column('path').doUpdateSet(row))
          .execute();
      }
      await pruneOrphans(tx);
    });
  }

  async removeByPaths(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (let i = 0; i < paths.length; i += 500) {
        await tx.deleteFrom('catalog_files').where('path', 'in', paths.slice(i, i + 500)).execute();
      }
      await pruneOrphans(tx);
    });
  }

  async listIndexedFiles(): Promise<IndexedFile[]> {
    const rows = await this.db.selectFrom('catalog_files').selectAll().orderBy('path').execute();
    return rows.map((r) => ({ path: r.path, mtimeMs: Number(r.mtime_ms), size: Number(r.size), sceneIds: JSON.parse(r.scene_ids) as string[] }));
  }

  async search(q: SceneQuery): Promise<SceneRecord[]> {
    let query = this.db.selectFrom('scenes').select('record');
    if (q.start) query = query.where('start_time', '>=', q.start.toISOString());
    if (q.end) query = query.where('start_time', '<=', q.end.toISOString());
    if (q.productTypes?.length) query = query.where('product_type', 'in', q.productTypes);
    if (q.orbitDirection) query = query.where('orbit_direction', '=', q.orbitDirection);
    if (q.intersects) {
      const [x0, y0, x1, y1] = bboxOf(q.intersects) as number[];
      query = query.where('min_lon', '<=', x1).where('max_lon', '>=', x0).where('min_lat', '<=', y1).where('max_lat', '>=', y0);
    }
    query = query.orderBy('start_time').orderBy('scene_id');
    if (q.limit !== undefined && !q.intersects) query = query.limit(q.limit);
    const rows = await query.execute();
    return rows.map((r) => JSON.parse(r.record) as SceneRecord);
  }

  async get(sceneId: string): Promise<SceneRecord | null> {
    const row = await this.db.selectFrom('scenes').select('record').where('scene_id', '=', sceneId).executeTakeFirst();
    return row ? (JSON.parse(row.record) as SceneRecord) : null;
  }
}

/** Scenes that no indexed file references any more. */
async function pruneOrphans(tx: Db): Promise<void> {
  const referenced = new Set<string>();
  for (const f of await tx.selectFrom('catalog_files').select('scene_ids').execute()) {
    for (const id of JSON.parse(f.scene_ids) as string[]) referenced.add(id);
  }
  const all = await tx.selectFrom('scenes').select('scene_id').execute();
  const orphans = all.map((r) => r.scene_id).filter((id) => !referenced.has(id));
  for (let i = 0; i < orphans.length; i += 500) {
    await tx.deleteFrom('scenes').where('scene_id', 'in', orphans.slice(i, i + 500)).execute();
  }
}
