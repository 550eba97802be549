import path from 'node:path';
import type { Config } from '../config.ts';
import { FileObjectStore } from './file.ts';
import type { ObjectStore } from './port.ts';
import { S3ObjectStore, createS3Client, parseS3Url } from './s3.ts';

export type { ObjectStore } from './port.ts';

/**
 * The object store named by STORAGE_URL: empty → a folder in the data directory, served by
 * the API under HMAC-signed URLs; `s3://bucket/prefix` → an S3-compatible bucket with
 * presigned URLs (S3_ENDPOINT, S3_FORCE_PATH_STYLE, AWS credentials from the environment).
 */
export async function openObjectStore(config: Config, signingSecret: Buffer): Promise<ObjectStore> {
  if (!config.storageUrl) return new FileObjectStore(path.join(config.dataDir, 'objects'), signingSecret, `${config.publicUrl}/objects`);
  if (config.storageUrl.startsWith('s3://')) {
    const client = await createS3Client({ endpoint: config.s3Endpoint, forcePathStyle: config.s3ForcePathStyle });
    return new S3ObjectStore(client, parseS3Url(config.storageUrl));
  }
  throw new Error(`unsupported STORAGE_URL "${config.storageUrl}": expected s3://bucket[/prefix], or unset for the data directory`);
}
