/**
 * Image uploads (issue 14), with the lifecycle of polygon uploads (service.ts): POST streams
 * the body to a private temporary file (counting bytes: 413 past SARWATCH_MAX_TIF_UPLOAD_BYTES;
 * 400 when its first bytes are not of the kind its Content-Type names), stores it in the
 * object store from that file, answers 202 processing, and validates it in the background on
 * the geometry thread (image.ts): ready with polarisations, size and footprint, or failed
 * with the reason. The file is never held whole in memory.
 *
 * Uploads belong to the account of the key: another account's id is 404, as for jobs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.ts';
import type { Db, TifUploadRow } from '../store/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import { ApiError } from '../contract/errors.ts';
import type { TifUpload, TifUploadAccepted, TifUploadList } from '../contract/schemas.ts';
import type { PolygonUploadStatus } from '../contract/schemas.ts';
import { isoNow } from '../time.ts';
import { onGeometryThread } from '../threads/geometryThread.ts';
import { parseAoiWkt, bboxOf } from '../geo/index.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../privateFiles.ts';
import { IMAGE_MEDIA_TYPES, magicMatches, threadTasks, type ImageKind } from './image.ts';
import { createTifUpload, markTifReady, markUploadFailed } from './transitions.ts';
import { accountUploads, TIF_UPLOADS, type UploadOwner } from './accountUploads.ts';
import type { UploadLog } from './service.ts';

const EXTENSION: Record<ImageKind, string> = { geotiff: 'tif', safe: 'zip' };
const CONTENT_TYPE: Record<ImageKind, string> = { geotiff: 'image/tiff', safe: 'application/zip' };
const KIND_TEXT: Record<ImageKind, string> = { geotiff: 'a TIFF', safe: 'a zip' };

export class TifUploadService {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly tmpDir: string;

  constructor(private readonly deps: { db: Db; config: Config; objects: ObjectStore; log?: UploadLog }) {
    this.tmpDir = path.join(deps.config.dataDir, 'tmp', 'tif-uploads');
  }

  /** The kind a Content-Type names, or 415. */
  static kindOf(contentType: string | undefined): ImageKind {
    const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const kind = IMAGE_MEDIA_TYPES[essence];
    if (!kind) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `image uploads take Content-Type ${Object.keys(IMAGE_MEDIA_TYPES).join(', ')}`);
    return kind;
  }

  private tmpFile(kind: ImageKind): string {
    ensurePrivateDir(this.tmpDir);
    // The readers tell a SAFE zip by its extension.
    return path.join(this.tmpDir, `${randomUUID()}.${EXTENSION[kind]}`);
  }

  /**
   * Streams the body to a temporary file within the size limit, checks its first bytes,
   * stores it and starts its validation. `declaredLength` (Content-Length) past the limit is
   * 413 before a byte is read.
   */
  async upload(principal: UploadOwner, kind: ImageKind, body: Readable, declaredLength: number | null): Promise<TifUploadAccepted> {
    const { db, objects, config } = this.deps;
    const limit = config.maxTifUploadBytes;
    const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `image uploads are limited to ${limit} bytes (SARWATCH_MAX_TIF_UPLOAD_BYTES)`);
    if (declaredLength !== null && declaredLength > limit) {
      body.resume(); // discard it: the client may still be sending
      throw tooLarge();
    }
    const file = this.tmpFile(kind);
    let size = 0;
    const head = Buffer.alloc(8);
    const counter = new Transform({
      transform(chunk: Buffer, _enc, callback) {
        if (size < head.length) chunk.copy(head, size, 0, Math.min(chunk.length, head.length - size));
        size += chunk.length;
        callback(size > limit ? tooLarge() : null, chunk);
      },
    });
    try {
      await pipeline(body, counter, fs.createWriteStream(file, { mode: PRIVATE_FILE_MODE }));
      if (size === 0) throw new ApiError('VALIDATION_ERROR', 'the request has no body; send the file as the body');
      if (!magicMatches(kind, head.subarray(0, Math.min(size, head.length)))) {
        throw new ApiError('VALIDATION_ERROR', `the body is not ${KIND_TEXT[kind]} (Content-Type ${CONTENT_TYPE[kind]}): ${kind === 'geotiff' ? 'send a GeoTIFF' : 'send a zipped SAFE product'}`);
      }
      const id = randomUUID();
      const originalKey = `uploads/tifs/${id}/original.${EXTENSION[kind]}`;
      await objects.putFile(originalKey, file, CONTENT_TYPE[kind]);
      await createTifUpload(db, { id, account_id: principal.accountId, kind, size_bytes: size, original_key: originalKey, created_at: isoNow() });
      this.track(this.validate(id, kind, file));
      return { tif_id: id, status: 'processing' };
    } catch (e) {
      body.resume();
      await fs.promises.rm(file, { force: true });
      if (e instanceof ApiError) throw e;
      // A client that stops sending mid-body: nothing was stored.
      if ((e as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET') {
        throw new ApiError('VALIDATION_ERROR', 'the body ended before it was complete; upload the file again');
      }
      throw e;
    }
  }

  private track(task: Promise<void>): void {
    const tracked = task.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** processing → ready | failed, then the temporary file is removed. Never throws. */
  private async validate(id: string, kind: ImageKind, file: string): Promise<void> {
    const { db, log } = this.deps;
    try {
      const facts = await onGeometryThread({ task: threadTasks.inspectImage, input: kind, params: file });
      if (!facts.ok) await markUploadFailed(db, id, facts.message, 'tif_uploads');
      else await markTifReady(db, id, facts);
    } catch (e) {
      log?.error({ tifId: id, err: e instanceof Error ? e.stack : String(e) }, 'image upload validation crashed');
      await markUploadFailed(db, id, 'the upload could not be validated because of an internal error; upload it again', 'tif_uploads').catch(() => {});
    } finally {
      await fs.promises.rm(file, { force: true }).catch(() => {});
    }
  }

  /**
   * Validates again the uploads a stopped process left `processing`, from their stored
   * files (copied back to a temporary file, streamed). Resolves with how many it restarted.
   */
  async resumeProcessing(startedBefore: string): Promise<number> {
    const { db, objects } = this.deps;
    const rows = await db.selectFrom('tif_uploads').select(['id', 'kind', 'original_key']).where('status', '=', 'processing').where('updated_at', '<', startedBefore).execute();
    for (const row of rows) {
      const stored = await objects.get(row.original_key);
      if (!stored) {
        await markUploadFailed(db, row.id, 'the uploaded file was lost before it was validated; upload it again', 'tif_uploads');
        continue;
      }
      const kind = row.kind as ImageKind;
      const file = this.tmpFile(kind);
      await pipeline(stored.body, fs.createWriteStream(file, { mode: PRIVATE_FILE_MODE }));
      this.track(this.validate(row.id, kind, file));
    }
    return rows.length;
  }

  /** Waits for the validations under way (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private uploads(principal: UploadOwner) {
    return accountUploads(this.deps.db, principal.accountId, TIF_UPLOADS);
  }

  async get(principal: UploadOwner, id: string): Promise<TifUpload> {
    return toView(await this.uploads(principal).own(id));
  }

  async list(principal: UploadOwner): Promise<TifUploadList> {
    return { tifs: (await this.uploads(principal).list()).map(toView) };
  }

  /** Deletes the row, then its file. Jobs already submitted on it fail when they run. */
  async delete(principal: UploadOwner, id: string): Promise<void> {
    await this.uploads(principal).delete(id, this.deps.objects);
  }
}

function toView(row: TifUploadRow): TifUpload {
  const footprint = row.footprint_wkt === null ? null : parseAoiWkt(row.footprint_wkt);
  const polygon = footprint && footprint.type === 'Polygon' ? { type: 'Polygon' as const, coordinates: footprint.coordinates as number[][][] } : null;
  return {
    tif_id: row.id,
    status: row.status as PolygonUploadStatus,
    kind: row.kind as ImageKind,
    size_bytes: Number(row.size_bytes),
    polarisations: row.polarisations === null ? null : row.polarisations.split(','),
    width: row.width === null ? null : Number(row.width),
    height: row.height === null ? null : Number(row.height),
    footprint: polygon,
    bbox: footprint ? bboxOf(footprint) : null,
    error: row.error_message,
    created_at: row.created_at,
  };
}
