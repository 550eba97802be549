import type { Db } from '../../store/index.ts';
import type { UploadTable } from './markUploadFailed.ts';

/** any → (none): the keys of the account's upload's objects, so they can be deleted. Null when there is none. */
export async function deleteUpload(db: Db, accountId: string, id: string, table: UploadTable = 'polygon_uploads'): Promise<{ original_key: string; geojson_key?: string | null } | null> {
  if (table === 'tif_uploads') {
    const row = await db.deleteFrom('tif_uploads').where('id', '=', id).where('account_id', '=', accountId).returning(['original_key']).executeTakeFirst();
    return row ?? null;
  }
  // polygon and AIS uploads keep a second object (the normalised features / fixes) under geojson_key.
  const row = await db.deleteFrom(table as 'polygon_uploads').where('id', '=', id).where('account_id', '=', accountId).returning(['original_key', 'geojson_key']).executeTakeFirst();
  return row ?? null;
}
