import type { Db, PolygonUploadRow } from '../../store/index.ts';
import { isoNow } from '../../time.ts';

/** processing → ready, with the validated facts. Null when the upload is no longer processing (deleted). */
export async function markUploadReady(
  db: Db,
  id: string,
  facts: { featureCount: number; areaSqkm: number; aoiWkt: string; geojsonKey: string },
): Promise<PolygonUploadRow | null> {
  const row = await db
    .updateTable('polygon_uploads')
    .set({
      status: 'ready',
      feature_count: facts.featureCount,
      area_sqkm: facts.areaSqkm,
      aoi_wkt: facts.aoiWkt,
      geojson_key: facts.geojsonKey,
      updated_at: isoNow(),
    })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
