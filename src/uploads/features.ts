/**
 * The features of a ready polygon upload, as validated (upload order, properties kept): for
 * detectors that work per feature (src/analysis/port.ts, AnalysisRequest.upload).
 */
import { JobFailure } from '../contract/errors.ts';
import type { UploadFeatureCollection } from '../analysis/port.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { Db } from '../store/index.ts';
import { accountUploads, POLYGON_UPLOADS } from './accountUploads.ts';

export async function readUploadFeatures(db: Db, objects: ObjectStore, accountId: string, polygonId: string): Promise<UploadFeatureCollection> {
  const row = await accountUploads(db, accountId, POLYGON_UPLOADS).find(polygonId.trim());
  const stored = row?.status === 'ready' && row.geojson_key ? await objects.get(row.geojson_key) : null;
  if (!stored) throw new JobFailure('VALIDATION_ERROR', `polygon_id: the polygon upload ${polygonId} is no longer available`);
  const chunks: Buffer[] = [];
  for await (const chunk of stored.body) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as UploadFeatureCollection;
}
