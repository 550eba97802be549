import type { Db } from '../../store/index.ts';
import { isoNow } from '../../time.ts';

/** processing → ready, with what validation read. False when the upload is no longer processing (deleted). */
export async function markAisReady(
  db: Db,
  id: string,
  facts: { fixCount: number; vesselCount: number; timeStart: string; timeEnd: string; fixesKey: string },
): Promise<boolean> {
  const result = await db
    .updateTable('ais_uploads')
    .set({ status: 'ready', fix_count: facts.fixCount, vessel_count: facts.vesselCount, time_start: facts.timeStart, time_end: facts.timeEnd, geojson_key: facts.fixesKey, updated_at: isoNow() })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
