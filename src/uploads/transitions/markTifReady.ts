import type { Db } from '../../store/index.ts';
import { isoNow } from '../../time.ts';

/** processing → ready, with what validation read. False when the upload is no longer processing (deleted). */
export async function markTifReady(
  db: Db,
  id: string,
  facts: { polarisations: string[]; width: number; height: number; footprintWkt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('tif_uploads')
    .set({ status: 'ready', polarisations: facts.polarisations.join(','), width: facts.width, height: facts.height, footprint_wkt: facts.footprintWkt, updated_at: isoNow() })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
