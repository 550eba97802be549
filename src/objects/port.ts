import type { Readable } from 'node:stream';

/** Where result files live: a local folder (embedded) or an S3-compatible bucket (scaled out). */
export interface ObjectStore {
  put(key: string, body: Buffer | string, contentType: string): Promise<void>;
  /** Stores a local file as the object, streamed (never whole in memory): uploaded images. */
  putFile(key: string, file: string, contentType: string): Promise<void>;
  get(key: string): Promise<{ body: Readable; size: number; contentType: string } | null>;
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix`, a folder ending in `/` (e.g. a job's tile results, `tiles/<job_id>/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** A URL that downloads the object until `expiresInSeconds` from now, without an API key. */
  presign(key: string, opts: { expiresInSeconds: number; filename: string; contentType: string }): Promise<string>;
}
