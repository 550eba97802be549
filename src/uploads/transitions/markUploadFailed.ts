import type { Db } from '../../store/index.ts';
import { isoNow } from '../../time.ts';

/** The tables of uploads: they share the lifecycle columns (id, account_id, status, error_message, updated_at). */
export type UploadTable = 'polygon_uploads' | 'tif_uploads' | 'ais_uploads';

/** processing → failed, with the reason. False when the upload is no longer processing (deleted). */
export async function markUploadFailed(db: Db, id: string, reason: string, table: UploadTable = 'polygon_uploads'): Promise<boolean> {
  const result = await db
    .updateTable(table as 'polygon_uploads')
    .set({ status: 'failed', error_message: reason, updated_at: isoNow() })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
