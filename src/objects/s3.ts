/**
 * S3-compatible object store for the scaled-out mode (`STORAGE_URL=s3://bucket/prefix`).
 * Downloads never pass through the API: a result is a presigned GET whose query carries
 * the download filename (Content-Disposition) and content type, so the bucket answers
 * with the same headers the embedded store's signed URLs give.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ObjectStore } from './port.ts';

// The AWS SDK is loaded only when an S3 store is opened: the embedded mode never needs it
// (and so never prints its runtime warnings). Node caches the modules after the first import.
const sdk = () => import('@aws-sdk/client-s3');

export interface S3Location {
  bucket: string;
  /** Key prefix without leading slash, ending with `/` unless empty. */
  prefix: string;
}

/** `s3://bucket/some/prefix` → { bucket, prefix: 'some/prefix/' }. */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url);
  if (!m) throw new Error(`STORAGE_URL "${url}" is not s3://bucket[/prefix]`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: m[1]!, prefix: prefix ? `${prefix}/` : '' };
}

export interface S3Options {
  /** S3-compatible endpoint (MinIO, s3rver, …); undefined for AWS. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Defaults to AWS_REGION, then us-east-1. Credentials come from the usual AWS environment. */
  region?: string;
}

export async function createS3Client(opts: S3Options): Promise<S3Client> {
  const { S3Client } = await sdk();
  return new S3Client({
    endpoint: opts.endpoint || undefined,
    forcePathStyle: opts.forcePathStyle ?? false,
    region: opts.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
    // Checksums only where S3 requires them: many S3-compatible servers reject the
    // optional CRC headers and aws-chunked bodies recent SDKs send by default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Quotes a filename for Content-Disposition (RFC 6266): ASCII fallback plus the UTF-8 form. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export class S3ObjectStore implements ObjectStore {
  constructor(
    private readonly client: S3Client,
    private readonly location: S3Location,
  ) {}

  private key(key: string): string {
    if (!key || key.startsWith('/') || key.split('/').includes('..')) throw new Error(`invalid object key "${key}"`);
    return `${this.location.prefix}${key}`;
  }

  async put(key: string, body: Buffer | string, contentType: string): Promise<void> {
    const { PutObjectCommand } = await sdk();
    await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(key), Body: body, ContentType: contentType }));
  }

  async putFile(key: string, file: string, contentType: string): Promise<void> {
    // One PUT, streamed from the file (S3 takes up to 5 GB so; the upload limit stays below).
    const { size } = await stat(file);
    const { PutObjectCommand } = await sdk();
    await this.client.send(
      new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(key), Body: createReadStream(file), ContentLength: size, ContentType: contentType }),
    );
  }

  async get(key: string): Promise<{ body: Readable; size: number; contentType: string } | null> {
    const { GetObjectCommand } = await sdk();
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(key) }));
      return { body: out.Body as Readable, size: Number(out.ContentLength ?? 0), contentType: out.ContentType ?? 'application/octet-stream' };
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    const { DeleteObjectCommand } = await sdk();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.key(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (!prefix.endsWith('/')) throw new Error(`invalid object prefix "${prefix}": a folder ending in /`);
    const { ListObjectsV2Command, DeleteObjectCommand } = await sdk();
    const full = this.key(prefix);
    // Listed a page (≤ 1,000 keys) at a time and deleted one by one: DeleteObject is the call
    // every S3-compatible server takes (multi-object delete wants checksums some refuse).
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: full, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: o.Key }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async presign(key: string, opts: { expiresInSeconds: number; filename: string; contentType: string }): Promise<string> {
    const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([sdk(), import('@aws-sdk/s3-request-presigner')]);
    const command = new GetObjectCommand({
      Bucket: this.location.bucket,
      Key: this.key(key),
      ResponseContentDisposition: contentDisposition(opts.filename),
      ResponseContentType: opts.contentType,
    });
    return getSignedUrl(this.client, command, { expiresIn: opts.expiresInSeconds });
  }

  /** Whether the bucket answers (readiness probes). */
  async reachable(): Promise<boolean> {
    const { HeadBucketCommand } = await sdk();
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
