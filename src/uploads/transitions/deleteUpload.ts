import type { Db, PolygonUploadRow } from '../../store/index.ts';

/** any → (none): the account's upload row, returned so its objects can be deleted. Null when there is none. */
export async function deleteUpload(db: Db, accountId: string, id: string): Promise<PolygonUploadRow | null> {
  const row = await db.deleteFrom('polygon_uploads').where('id', '=', id).where('account_id', '=', accountId).returningAll().executeTakeFirst();
  return row ?? null;
}
