/**
 * The local file a `tif_id` job reads: the readers need random access to a path, and the
 * object store (local folder or S3) serves streams, so the worker copies the upload to a
 * private temporary file for the analysis and removes it after, whatever the outcome. The
 * copy costs the image's size on the worker's disk while the job runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { JobFailure } from '../contract/errors.ts';
import type { ObjectStore } from '../objects/port.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../privateFiles.ts';

export async function withLocalImage<T>(objects: ObjectStore, dataDir: string, jobId: string, key: string, use: (file: string) => Promise<T>): Promise<T> {
  const stored = await objects.get(key);
  if (!stored) throw new JobFailure('VALIDATION_ERROR', 'tif_id: the image upload is no longer available');
  const dir = path.join(dataDir, 'tmp', 'tif-jobs');
  ensurePrivateDir(dir);
  // The readers tell a SAFE zip from a GeoTIFF by the extension, kept from the key.
  const file = path.join(dir, `${jobId}${path.extname(key)}`);
  try {
    await pipeline(stored.body, fs.createWriteStream(file, { mode: PRIVATE_FILE_MODE }));
    return await use(file);
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}
