import type { AisUploadRow, Db } from '../../store/index.ts';

/** (none) → processing: an AIS upload's row, once its file is stored. */
export async function createAisUpload(db: Db, upload: Pick<AisUploadRow, 'id' | 'account_id' | 'size_bytes' | 'original_key' | 'created_at'>): Promise<void> {
  await db
    .insertInto('ais_uploads')
    .values({ ...upload, status: 'processing', fix_count: null, vessel_count: null, time_start: null, time_end: null, error_message: null, geojson_key: null, updated_at: upload.created_at })
    .execute();
}
