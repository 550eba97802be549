/**
 * The AOI a `polygon_id` stands for: the union of a ready upload of the same account, as
 * WKT (checked again with the request polygon's rules by validateSubmission, so the
 * endpoint's area limit applies to it). Unknown (or another account's) → 404, not ready
 * (processing, failed) → 409 NOT_READY. Submission and the worker use it as it is; a preview
 * catches UploadUnavailable and answers 200 (the spec checks it at submission only).
 */
import { ApiError } from '../contract/errors.ts';
import type { Db } from '../store/index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type UploadAoiLookup = (polygonId: string) => Promise<string>;

/** 404 or 409 of a polygon_id: what a preview does not report. */
export class UploadUnavailable extends ApiError {}

export function uploadAoiLookup(db: Db, accountId: string): UploadAoiLookup {
  return async (polygonId) => {
    const id = polygonId.trim().toLowerCase();
    const row = UUID.test(id)
      ? await db.selectFrom('polygon_uploads').select(['status', 'aoi_wkt']).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
      : undefined;
    if (!row) throw new UploadUnavailable('NOT_FOUND', UUID.test(id) ? `polygon_id: no polygon upload ${id}` : 'polygon_id: no polygon upload with this id (ids are UUIDs)');
    if (row.status !== 'ready' || row.aoi_wkt === null) {
      throw new UploadUnavailable(
        'NOT_READY',
        row.status === 'failed'
          ? `polygon_id: the upload ${id} failed validation; it cannot be used (see GET /api/v1/polygons/${id})`
          : `polygon_id: the upload ${id} is still being validated; submit again once its status is ready`,
      );
    }
    return row.aoi_wkt;
  };
}

/** For callers without uploads (tests of validation alone): every polygon_id is unknown. */
export const NO_UPLOADS: UploadAoiLookup = async () => {
  throw new UploadUnavailable('NOT_FOUND', 'polygon_id: no polygon upload with this id');
};
