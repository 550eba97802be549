import type { Db, TifUploadRow } from '../../store/index.ts';

/** (none) → processing: an image upload's row, once its file is stored. */
export async function createTifUpload(
  db: Db,
  upload: Pick<TifUploadRow, 'id' | 'account_id' | 'kind' | 'size_bytes' | 'original_key' | 'created_at'>,
): Promise<void> {
  await db
    .insertInto('tif_uploads')
    .values({ ...upload, status: 'processing', polarisations: null, width: null, height: null, footprint_wkt: null, error_message: null, updated_at: upload.created_at })
    .execute();
}
