/**
 * What an upload id in a job body stands for, when that upload of the same account is ready:
 * a `polygon_id` its union (WKT, checked again with the request polygon's rules by
 * validateSubmission, so the endpoint's area limit applies to it); a `tif_id` the image to
 * analyse (its kind, object key and footprint). Unknown (or another account's) → 404, not
 * ready (processing, failed) → 409 NOT_READY. Submission and the worker use them as they
 * are; a preview catches UploadUnavailable and answers 200 (the spec checks them at
 * submission only).
 */
import { ApiError } from '../contract/errors.ts';
import type { Db } from '../store/index.ts';
import type { ImageKind } from './image.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type UploadAoiLookup = (polygonId: string) => Promise<string>;

/** A ready image upload, as a job analyses it. */
export interface UploadedImage {
  tifId: string;
  kind: ImageKind;
  /** Where the file is in the object store. */
  key: string;
  /** Outline of its valid pixels (WKT): the AOI when the body names no polygon. */
  footprintWkt: string;
}
export type UploadImageLookup = (tifId: string) => Promise<UploadedImage>;

/** 404 or 409 of an upload id: what a preview does not report. */
export class UploadUnavailable extends ApiError {}

/** The account's row of `id` when it is ready; 404 / 409 otherwise (field: the body field, path: its GET route). */
async function readyRow<T extends { status: string }>(
  id: string,
  what: { field: string; noun: string; route: string },
  find: (id: string) => Promise<T | undefined>,
): Promise<{ id: string; row: T }> {
  const clean = id.trim().toLowerCase();
  const row = UUID.test(clean) ? await find(clean) : undefined;
  if (!row) throw new UploadUnavailable('NOT_FOUND', UUID.test(clean) ? `${what.field}: no ${what.noun} ${clean}` : `${what.field}: no ${what.noun} with this id (ids are UUIDs)`);
  if (row.status !== 'ready') {
    throw new UploadUnavailable(
      'NOT_READY',
      row.status === 'failed'
        ? `${what.field}: the upload ${clean} failed validation; it cannot be used (see GET /api/v1/${what.route}/${clean})`
        : `${what.field}: the upload ${clean} is still being validated; submit again once its status is ready`,
    );
  }
  return { id: clean, row };
}

export function uploadAoiLookup(db: Db, accountId: string): UploadAoiLookup {
  return async (polygonId) => {
    const { row } = await readyRow(polygonId, { field: 'polygon_id', noun: 'polygon upload', route: 'polygons' }, (id) =>
      db.selectFrom('polygon_uploads').select(['status', 'aoi_wkt']).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst(),
    );
    if (row.aoi_wkt === null) throw new UploadUnavailable('NOT_READY', 'polygon_id: the upload has no area yet; submit again once its status is ready');
    return row.aoi_wkt;
  };
}

export function uploadImageLookup(db: Db, accountId: string): UploadImageLookup {
  return async (tifId) => {
    const { id, row } = await readyRow(tifId, { field: 'tif_id', noun: 'image upload', route: 'tifs' }, (id) =>
      db.selectFrom('tif_uploads').select(['status', 'kind', 'original_key', 'footprint_wkt']).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst(),
    );
    if (row.footprint_wkt === null) throw new UploadUnavailable('NOT_READY', 'tif_id: the upload has no footprint yet; submit again once its status is ready');
    return { tifId: id, kind: row.kind as ImageKind, key: row.original_key, footprintWkt: row.footprint_wkt };
  };
}

/** Both lookups of one account: what validateSubmission resolves upload ids with. */
export interface UploadLookups {
  aoi: UploadAoiLookup;
  image: UploadImageLookup;
}

export function uploadLookups(db: Db, accountId: string): UploadLookups {
  return { aoi: uploadAoiLookup(db, accountId), image: uploadImageLookup(db, accountId) };
}

/** For callers without uploads (tests of validation alone): every upload id is unknown. */
export const NO_UPLOADS: UploadLookups = {
  aoi: async () => {
    throw new UploadUnavailable('NOT_FOUND', 'polygon_id: no polygon upload with this id');
  },
  image: async () => {
    throw new UploadUnavailable('NOT_FOUND', 'tif_id: no image upload with this id');
  },
};
