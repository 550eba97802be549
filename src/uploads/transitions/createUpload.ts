import type { Db, PolygonUploadRow } from '../../store/index.ts';

/** (none) → processing: the upload's row, once its original file is stored. */
export async function createUpload(
  db: Db,
  upload: Pick<PolygonUploadRow, 'id' | 'account_id' | 'format' | 'size_bytes' | 'original_key' | 'created_at'>,
): Promise<PolygonUploadRow> {
  return db
    .insertInto('polygon_uploads')
    .values({
      ...upload,
      status: 'processing',
      feature_count: null,
      area_sqkm: null,
      aoi_wkt: null,
      error_message: null,
      geojson_key: null,
      updated_at: upload.created_at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
