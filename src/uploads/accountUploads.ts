/**
 * The uploads of one table as an account sees them, polygon uploads (`polygon_id`), image
 * uploads (`tif_id`) and AIS uploads (`ais_id`) alike: ids are UUIDs, matched lowercase; another account's id is
 * unknown (404, as for jobs). The routes read (`own`, `list`) and delete through it; a job
 * body's id is resolved by `ready` (404 unknown, 409 NOT_READY processing or failed, as
 * UploadUnavailable: a preview answers 200 for them, lookup.ts).
 */
import { ApiError } from '../contract/errors.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { AisUploadRow, Db, PolygonUploadRow, TifUploadRow } from '../store/index.ts';
import { deleteUpload, type UploadTable } from './transitions.ts';

/** Who asks, as the uploads see it: an upload belongs to an account (the API's Principal is one). */
export interface UploadOwner {
  readonly accountId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The newest uploads a list returns. */
export const UPLOAD_LIST_LIMIT = 100;

/** Each table with the names its messages use: the body field, the noun, the GET route. */
export const POLYGON_UPLOADS = { table: 'polygon_uploads', field: 'polygon_id', noun: 'polygon upload', route: 'polygons' } as const;
export const TIF_UPLOADS = { table: 'tif_uploads', field: 'tif_id', noun: 'image upload', route: 'tifs' } as const;
export const AIS_UPLOADS = { table: 'ais_uploads', field: 'ais_id', noun: 'AIS upload', route: 'ais' } as const;
type UploadKind = typeof POLYGON_UPLOADS | typeof TIF_UPLOADS | typeof AIS_UPLOADS;
type RowOf<K extends UploadKind> = { polygon_uploads: PolygonUploadRow; tif_uploads: TifUploadRow; ais_uploads: AisUploadRow }[K['table']];

/** 404 or 409 of an upload id in a job body: what a preview does not report. */
export class UploadUnavailable extends ApiError {}

export function accountUploads<K extends UploadKind>(db: Db, accountId: string, kind: K) {
  const { field, noun, route } = kind;
  // The tables share the columns used here (UploadTable); kysely is told one of them.
  const table = kind.table as UploadTable as 'polygon_uploads';

  /** The account's row of `id` (any status), or undefined. */
  const find = async (id: string): Promise<RowOf<K> | undefined> =>
    UUID.test(id) ? ((await db.selectFrom(table).selectAll().where('id', '=', id.toLowerCase()).where('account_id', '=', accountId).executeTakeFirst()) as RowOf<K> | undefined) : undefined;

  /** The row of a route's id, or 404. */
  const own = async (id: string): Promise<RowOf<K>> => {
    const row = await find(id);
    if (!row) throw new ApiError('NOT_FOUND', UUID.test(id) ? `no ${noun} ${id.toLowerCase()}` : `no ${noun} with this ${field} (ids are UUIDs)`);
    return row;
  };

  return {
    find,
    own,

    /** The newest UPLOAD_LIST_LIMIT rows, newest first. */
    list: async (): Promise<RowOf<K>[]> =>
      (await db.selectFrom(table).selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(UPLOAD_LIST_LIMIT).execute()) as RowOf<K>[],

    /** Deletes the row, then its objects; 404 when there is none. Jobs already submitted on it fail when they run (VALIDATION_ERROR). */
    async delete(id: string, objects: ObjectStore): Promise<void> {
      const row = await own(id);
      const deleted = await deleteUpload(db, accountId, row.id, kind.table);
      if (!deleted) throw new ApiError('NOT_FOUND', `no ${noun} ${row.id}`);
      for (const key of [deleted.original_key, deleted.geojson_key]) if (key) await objects.delete(key);
    },

    /** The ready row a job body's id names: 404 unknown, 409 NOT_READY processing or failed. */
    async ready(id: string): Promise<RowOf<K>> {
      const clean = id.trim().toLowerCase();
      const row = await find(clean);
      if (!row) throw new UploadUnavailable('NOT_FOUND', UUID.test(clean) ? `${field}: no ${noun} ${clean}` : `${field}: no ${noun} with this id (ids are UUIDs)`);
      if (row.status !== 'ready') {
        throw new UploadUnavailable(
          'NOT_READY',
          row.status === 'failed'
            ? `${field}: the upload ${clean} failed validation; it cannot be used (see GET /api/v1/${route}/${clean})`
            : `${field}: the upload ${clean} is still being validated; submit again once its status is ready`,
        );
      }
      return row;
    },
  };
}
