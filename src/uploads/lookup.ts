/**
 * What an upload id in a job body stands for, when that upload of the same account is ready
 * (accountUploads.ts `ready`: unknown or another account's → 404, processing or failed → 409
 * NOT_READY): an `ais_id` where its fixes are; a `polygon_id` its union (WKT, checked again with the request polygon's rules by
 * validateSubmission, so the endpoint's area limit applies to it); a `tif_id` the image to
 * analyse (its kind, object key and footprint). Submission and the worker use them as they
 * are; a preview catches UploadUnavailable and answers 200 (the spec checks them at
 * submission only).
 */
import type { Db } from '../store/index.ts';
import type { ImageKind } from './image.ts';
import { accountUploads, AIS_UPLOADS, POLYGON_UPLOADS, TIF_UPLOADS, UploadUnavailable } from './accountUploads.ts';

export { UploadUnavailable } from './accountUploads.ts';

/** A ready image upload, as a job analyses it. */
export interface UploadedImage {
  tifId: string;
  kind: ImageKind;
  /** Where the file is in the object store. */
  key: string;
  /** Outline of its valid pixels (WKT): the AOI when the body names no polygon. */
  footprintWkt: string;
}

/** A ready AIS upload, as a ship job matches it. */
export interface UploadedAis {
  aisId: string;
  /** Where its normalised fixes are in the object store (src/uploads/aisService.ts readAisFixes). */
  fixesKey: string;
}

/** The lookups of one account: what validateSubmission resolves upload ids with. */
export interface UploadLookups {
  aoi(polygonId: string): Promise<string>;
  image(tifId: string): Promise<UploadedImage>;
  ais(aisId: string): Promise<UploadedAis>;
}

export function uploadLookups(db: Db, accountId: string): UploadLookups {
  return {
    async aoi(polygonId) {
      const row = await accountUploads(db, accountId, POLYGON_UPLOADS).ready(polygonId);
      if (row.aoi_wkt === null) throw new UploadUnavailable('NOT_READY', 'polygon_id: the upload has no area yet; submit again once its status is ready');
      return row.aoi_wkt;
    },
    async image(tifId) {
      const row = await accountUploads(db, accountId, TIF_UPLOADS).ready(tifId);
      if (row.footprint_wkt === null) throw new UploadUnavailable('NOT_READY', 'tif_id: the upload has no footprint yet; submit again once its status is ready');
      return { tifId: row.id, kind: row.kind as ImageKind, key: row.original_key, footprintWkt: row.footprint_wkt };
    },
    async ais(aisId) {
      const row = await accountUploads(db, accountId, AIS_UPLOADS).ready(aisId);
      if (row.geojson_key === null) throw new UploadUnavailable('NOT_READY', 'ais_id: the upload has no fixes yet; submit again once its status is ready');
      return { aisId: row.id, fixesKey: row.geojson_key };
    },
  };
}

/** For callers without uploads (tests of validation alone): every upload id is unknown. */
export const NO_UPLOADS: UploadLookups = {
  aoi: async () => {
    throw new UploadUnavailable('NOT_FOUND', 'polygon_id: no polygon upload with this id');
  },
  image: async () => {
    throw new UploadUnavailable('NOT_FOUND', 'tif_id: no image upload with this id');
  },
  ais: async () => {
    throw new UploadUnavailable('NOT_FOUND', 'ais_id: no AIS upload with this id');
  },
};
