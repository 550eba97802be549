import type { Db, PolygonUploadRow } from '../../store/index.ts';
import { isoNow } from '../../jobs/time.ts';

/** processing → failed, with the reason. Null when the upload is no longer processing (deleted). */
export async function markUploadFailed(db: Db, id: string, reason: string): Promise<PolygonUploadRow | null> {
  const row = await db
    .updateTable('polygon_uploads')
    .set({ status: 'failed', error_message: reason, updated_at: isoNow() })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
