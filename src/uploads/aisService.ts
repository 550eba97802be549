/**
 * AIS uploads (issue 23 §4), with the lifecycle of polygon uploads (service.ts): POST reads
 * the CSV (aisCsv.ts: 400 naming the line and field of the first bad one), stores it and
 * answers 202 processing; the normalised fixes are stored in the background and the upload
 * ends ready (or failed). A ship job names a ready upload by `ais_id` (lookup.ts); the
 * worker reads its fixes with `readAisFixes`.
 *
 * Uploads belong to the account of the key: another account's id is 404, as for jobs.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { AisUploadRow, Db } from '../store/index.ts';
import type { ObjectStore } from '../objects/port.ts';
import { ApiError } from '../contract/errors.ts';
import type { AisUpload, AisUploadAccepted, AisUploadList, PolygonUploadStatus } from '../contract/schemas.ts';
import { isoNow } from '../time.ts';
import { parseAisCsv, type AisFix } from './aisCsv.ts';
import { createAisUpload, markAisReady, markUploadFailed } from './transitions.ts';
import { accountUploads, AIS_UPLOADS, type UploadOwner } from './accountUploads.ts';
import type { UploadLog } from './service.ts';

export const AIS_MEDIA_TYPES = ['text/csv'];

export class AisUploadService {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: { db: Db; config: Config; objects: ObjectStore; log?: UploadLog }) {}

  /** text/csv, or 415. */
  static checkMediaType(contentType: string | undefined): void {
    const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!AIS_MEDIA_TYPES.includes(essence)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `AIS uploads take Content-Type ${AIS_MEDIA_TYPES.join(', ')}`);
  }

  async upload(principal: UploadOwner, body: Buffer): Promise<AisUploadAccepted> {
    const { db, objects, config } = this.deps;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw new ApiError('VALIDATION_ERROR', 'the body is not UTF-8 text; send the CSV as UTF-8');
    }
    const parsed = parseAisCsv(text, config.maxUploadFeatures);
    if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', parsed.message);
    const id = randomUUID();
    const originalKey = `uploads/ais/${id}/original.csv`;
    await objects.put(originalKey, body, 'text/csv');
    await createAisUpload(db, { id, account_id: principal.accountId, size_bytes: body.byteLength, original_key: originalKey, created_at: isoNow() });
    const task = this.store(id, parsed).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
    return { ais_id: id, status: 'processing' };
  }

  /** processing → ready with the normalised fixes stored. Never throws. */
  private async store(id: string, parsed: Extract<ReturnType<typeof parseAisCsv>, { ok: true }>): Promise<void> {
    const { db, objects, log } = this.deps;
    try {
      const fixesKey = `uploads/ais/${id}/fixes-${randomUUID().slice(0, 8)}.json`;
      await objects.put(fixesKey, Buffer.from(JSON.stringify(parsed.fixes)), 'application/json');
      const ready = await markAisReady(db, id, { fixCount: parsed.fixes.length, vesselCount: parsed.vesselCount, timeStart: parsed.timeStart, timeEnd: parsed.timeEnd, fixesKey });
      if (!ready) await objects.delete(fixesKey); // deleted meanwhile
    } catch (e) {
      log?.error({ aisId: id, err: e instanceof Error ? e.stack : String(e) }, 'AIS upload could not be stored');
      await markUploadFailed(db, id, 'the upload could not be stored because of an internal error; upload it again', 'ais_uploads').catch(() => {});
    }
  }

  /** Ends the uploads a stopped process left `processing`, from their stored CSV. Resolves with how many. */
  async resumeProcessing(startedBefore: string): Promise<number> {
    const { db, objects, config } = this.deps;
    const rows = await db.selectFrom('ais_uploads').select(['id', 'original_key']).where('status', '=', 'processing').where('updated_at', '<', startedBefore).execute();
    for (const row of rows) {
      const stored = await objects.get(row.original_key);
      if (!stored) {
        await markUploadFailed(db, row.id, 'the uploaded file was lost before it was validated; upload it again', 'ais_uploads');
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of stored.body) chunks.push(chunk as Buffer);
      const parsed = parseAisCsv(Buffer.concat(chunks).toString('utf8'), config.maxUploadFeatures);
      if (!parsed.ok) await markUploadFailed(db, row.id, parsed.message, 'ais_uploads');
      else {
        const task = this.store(row.id, parsed).finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
      }
    }
    return rows.length;
  }

  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private uploads(principal: UploadOwner) {
    return accountUploads(this.deps.db, principal.accountId, AIS_UPLOADS);
  }

  async get(principal: UploadOwner, id: string): Promise<AisUpload> {
    return toView(await this.uploads(principal).own(id));
  }

  async list(principal: UploadOwner): Promise<AisUploadList> {
    return { ais: (await this.uploads(principal).list()).map(toView) };
  }

  async delete(principal: UploadOwner, id: string): Promise<void> {
    await this.uploads(principal).delete(id, this.deps.objects);
  }
}

/** The fixes of a ready upload (the worker's read), or null when its object is gone. */
export async function readAisFixes(objects: ObjectStore, fixesKey: string): Promise<AisFix[] | null> {
  const stored = await objects.get(fixesKey);
  if (!stored) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stored.body) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as AisFix[];
}

function toView(row: AisUploadRow): AisUpload {
  return {
    ais_id: row.id,
    status: row.status as PolygonUploadStatus,
    size_bytes: Number(row.size_bytes),
    fix_count: row.fix_count === null ? null : Number(row.fix_count),
    vessel_count: row.vessel_count === null ? null : Number(row.vessel_count),
    time_start: row.time_start,
    time_end: row.time_end,
    error: row.error_message,
    created_at: row.created_at,
  };
}
