/**
 * Polygon uploads (issue 14): POST stores the file and answers at once (202, processing);
 * validation runs in the background on the geometry thread (every feature as a request
 * polygon, their union and its geodesic area) and ends the upload ready or failed. A job
 * names a ready upload by `polygon_id`: its AOI is the union (lookup.ts).
 *
 * Uploads belong to the account of the key: another account's id is 404, as for jobs.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db, PolygonUploadRow } from '../store/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import { ApiError } from '../contract/errors.ts';
import type { PolygonUpload, PolygonUploadAccepted, PolygonUploadList, PolygonUploadStatus } from '../contract/schemas.ts';
import { isoNow } from '../time.ts';
import { onGeometryThread } from '../threads/geometryThread.ts';
import { threadTasks, UPLOAD_MEDIA_TYPES, type UploadFormat, type UploadLimits } from './read.ts';
import { createUpload, markUploadFailed, markUploadReady } from './transitions.ts';
import { accountUploads, POLYGON_UPLOADS, type UploadOwner } from './accountUploads.ts';

const EXTENSION: Record<UploadFormat, string> = { geojson: 'geojson', kml: 'kml', shapefile: 'zip' };

export interface UploadLog {
  error(obj: object, msg?: string): void;
}

export class PolygonUploadService {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: { db: Db; config: Config; objects: ObjectStore; log?: UploadLog }) {}

  private limits(): UploadLimits {
    const { config } = this.deps;
    // A zip may unpack to a few times its size (dbf text compresses well); not to more.
    return { maxFeatures: config.maxUploadFeatures, maxUnzippedBytes: 8 * config.maxUploadBytes, polygon: config.polygonLimits };
  }

  /** The format a Content-Type names, or 415. */
  static formatOf(contentType: string | undefined): UploadFormat {
    const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const format = UPLOAD_MEDIA_TYPES[essence];
    if (!format) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `polygon uploads take Content-Type ${Object.keys(UPLOAD_MEDIA_TYPES).join(', ')}`);
    }
    return format;
  }

  /**
   * Reads the file far enough to know it is one of its format with an accepted number of
   * features (400 otherwise), stores it, and starts its validation.
   */
  async upload(principal: UploadOwner, format: UploadFormat, body: Buffer): Promise<PolygonUploadAccepted> {
    const { db, objects } = this.deps;
    const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    const counted = await onGeometryThread({ task: threadTasks.countUploadFeatures, input: { format, bytes, limits: this.limits() } });
    if (!counted.ok) throw new ApiError('VALIDATION_ERROR', counted.message);
    const id = randomUUID();
    const originalKey = `uploads/polygons/${id}/original.${EXTENSION[format]}`;
    await objects.put(originalKey, body, Object.entries(UPLOAD_MEDIA_TYPES).find(([, f]) => f === format)![0]);
    await createUpload(db, { id, account_id: principal.accountId, format, size_bytes: body.byteLength, original_key: originalKey, created_at: isoNow() });
    const task = this.validate(id, format, bytes).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
    return { polygon_id: id, status: 'processing' };
  }

  /** processing → ready | failed. Never throws: every outcome is the upload's status. */
  private async validate(id: string, format: UploadFormat, bytes: Uint8Array): Promise<void> {
    const { db, objects, log } = this.deps;
    try {
      const validated = await onGeometryThread({ task: threadTasks.validateUpload, input: { format, bytes, limits: this.limits() } });
      if (!validated.ok) {
        await markUploadFailed(db, id, validated.message);
        return;
      }
      // One key per validation: a second validation of the same upload (a resumed one) never
      // deletes the object the first one made ready.
      const geojsonKey = `uploads/polygons/${id}/features-${randomUUID().slice(0, 8)}.geojson`;
      await objects.put(geojsonKey, validated.geojson, 'application/geo+json');
      const ready = await markUploadReady(db, id, { featureCount: validated.featureCount, areaSqkm: validated.areaSqkm, aoiWkt: validated.unionWkt, geojsonKey });
      if (!ready) await objects.delete(geojsonKey); // deleted while it was validated
    } catch (e) {
      log?.error({ polygonId: id, err: e instanceof Error ? e.stack : String(e) }, 'polygon upload validation crashed');
      await markUploadFailed(db, id, 'the upload could not be validated because of an internal error; upload it again').catch(() => {});
    }
  }

  /**
   * Validates again the uploads left `processing` by a process that stopped before their
   * validation ended, from their stored original files. Run at start by the API role; a
   * validation another live process still runs is harmless to repeat (the transitions are
   * guarded: the first to end wins). Resolves with how many it restarted.
   */
  async resumeProcessing(startedBefore: string): Promise<number> {
    const { db, objects } = this.deps;
    const rows = await db
      .selectFrom('polygon_uploads')
      .select(['id', 'format', 'original_key'])
      .where('status', '=', 'processing')
      .where('updated_at', '<', startedBefore)
      .execute();
    for (const row of rows) {
      const stored = await objects.get(row.original_key);
      if (!stored) {
        await markUploadFailed(db, row.id, 'the uploaded file was lost before it was validated; upload it again');
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of stored.body) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const task = this.validate(row.id, row.format as UploadFormat, new Uint8Array(body.buffer, body.byteOffset, body.byteLength)).finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
    }
    return rows.length;
  }

  /** Waits for the validations under way (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private uploads(principal: UploadOwner) {
    return accountUploads(this.deps.db, principal.accountId, POLYGON_UPLOADS);
  }

  async get(principal: UploadOwner, id: string): Promise<PolygonUpload> {
    return toView(await this.uploads(principal).own(id));
  }

  async list(principal: UploadOwner): Promise<PolygonUploadList> {
    return { polygons: (await this.uploads(principal).list()).map(toView) };
  }

  /** Deletes the row, then its objects. Jobs already submitted on it fail when they run (VALIDATION_ERROR). */
  async delete(principal: UploadOwner, id: string): Promise<void> {
    await this.uploads(principal).delete(id, this.deps.objects);
  }
}

function toView(row: PolygonUploadRow): PolygonUpload {
  return {
    polygon_id: row.id,
    status: row.status as PolygonUploadStatus,
    format: row.format as UploadFormat,
    size_bytes: Number(row.size_bytes),
    feature_count: row.feature_count === null ? null : Number(row.feature_count),
    area_sqkm: row.area_sqkm === null ? null : Math.round(Number(row.area_sqkm) * 1e6) / 1e6,
    error: row.error_message,
    created_at: row.created_at,
  };
}
