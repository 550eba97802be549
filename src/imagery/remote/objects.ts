/**
 * Remote objects read by byte range: an http(s) URL (signed or with an Authorization header
 * per request, so renewed tokens apply to a long job's later reads) or an S3 object through
 * the AWS SDK. Transient failures (429, 5xx, timeouts, resets) are retried with backoff;
 * what remains after the budget is an ImageryError REMOTE_UNAVAILABLE.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { ImageryError } from '../errors.js';
import type { RangeReadable } from './byteCache.js';
import { fetchTransient, isRetryableStatus, TransientError, withRetries, type RetryPolicy } from './retry.js';

export interface HttpAuth {
  /** The URL to request (e.g. with a SAS token appended). Called per request. */
  sign?: (href: string) => Promise<string>;
  /** Extra request headers (e.g. a bearer token). Called per request. */
  headers?: (href: string) => Promise<Record<string, string>>;
}

/** The href without its query string: SAS tokens and signatures change, the bytes do not. */
export function cacheKeyOf(href: string): string {
  return href.replace(/[?#].*$/, '');
}

function unavailable(href: string, e: unknown): ImageryError {
  const msg = e instanceof Error ? e.message : String(e);
  return new ImageryError('REMOTE_UNAVAILABLE', `cannot read ${cacheKeyOf(href)}: ${msg}`, { cause: e });
}

export class HttpObject implements RangeReadable {
  readonly cacheKey: string;
  private knownSize: number | null = null;

  constructor(
    readonly href: string,
    private readonly auth: HttpAuth = {},
    private readonly retry: RetryPolicy = {},
    private readonly timeoutMs = 60_000,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.cacheKey = cacheKeyOf(href);
  }

  /** One attempt; callers wrap it in withRetries together with reading the body. */
  private async request(headers: Record<string, string>): Promise<Response> {
    const url = this.auth.sign ? await this.auth.sign(this.href) : this.href;
    const extra = this.auth.headers ? await this.auth.headers(this.href) : {};
    return fetchTransient(this.fetchImpl, url, { headers: { ...extra, ...headers } }, this.timeoutMs);
  }

  async size(): Promise<number> {
    if (this.knownSize !== null) return this.knownSize;
    // One byte by range: Content-Range carries the total (HEAD is not always allowed with SAS).
    let res: Response;
    try {
      res = await withRetries(() => this.request({ range: 'bytes=0-0' }), this.retry);
    } catch (e) {
      throw unavailable(this.href, e);
    }
    await res.body?.cancel().catch(() => {});
    const total = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1];
    if (res.status === 206 && total) return (this.knownSize = Number(total));
    if (res.status === 404 || res.status === 403 || res.status === 401) {
      throw new ImageryError('NOT_FOUND', `${this.cacheKey} answered ${res.status}`);
    }
    throw new ImageryError('REMOTE_UNAVAILABLE', `${this.cacheKey} does not serve byte ranges (status ${res.status}); whole-file downloads are not done`);
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (length <= 0) return new Uint8Array(0);
    try {
      return await withRetries(async () => {
        const res = await this.request({ range: `bytes=${offset}-${offset + length - 1}` });
        if (res.status !== 206) {
          await res.body?.cancel().catch(() => {});
          if (res.status === 404 || res.status === 403 || res.status === 401) throw new ImageryError('NOT_FOUND', `${this.cacheKey} answered ${res.status}`);
          throw new ImageryError('REMOTE_UNAVAILABLE', `${this.cacheKey} answered ${res.status} to a range request; whole-file downloads are not done`);
        }
        let buf: ArrayBuffer;
        try {
          buf = await res.arrayBuffer();
        } catch (e) {
          throw new TransientError(`${this.cacheKey}: body cut off (${(e as Error).message})`, 'network');
        }
        if (buf.byteLength !== length) throw new TransientError(`${this.cacheKey}: ${buf.byteLength} of ${length} bytes`, 'network');
        return new Uint8Array(buf);
      }, this.retry);
    } catch (e) {
      if (e instanceof ImageryError) throw e;
      throw unavailable(this.href, e);
    }
  }

  /** The whole object (small sidecars: manifest, annotation XML). */
  async text(): Promise<string> {
    try {
      return await withRetries(async () => {
        const res = await this.request({});
        if (res.status === 404 || res.status === 403 || res.status === 401) {
          await res.body?.cancel().catch(() => {});
          throw new ImageryError('NOT_FOUND', `${this.cacheKey} answered ${res.status}`);
        }
        if (!res.ok) throw new ImageryError('REMOTE_UNAVAILABLE', `${this.cacheKey} answered ${res.status}`);
        try {
          return await res.text();
        } catch (e) {
          throw new TransientError(`${this.cacheKey}: body cut off (${(e as Error).message})`, 'network');
        }
      }, this.retry);
    } catch (e) {
      if (e instanceof ImageryError) throw e;
      throw unavailable(this.href, e);
    }
  }
}

/** `s3://bucket/key` → bucket and key. */
export function parseS3Href(href: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/(.+)$/i.exec(href);
  if (!m) throw new ImageryError('NOT_FOUND', `not an s3:// href: ${href}`);
  return { bucket: m[1]!, key: decodeURIComponent(m[2]!) };
}

interface S3Failure {
  name?: string;
  $metadata?: { httpStatusCode?: number };
  message?: string;
}

function s3Transient(e: unknown, what: string): unknown {
  const f = e as S3Failure;
  const status = f?.$metadata?.httpStatusCode;
  if ((status !== undefined && isRetryableStatus(status)) || /SlowDown|Throttl|RequestTimeout|InternalError|ServiceUnavailable|TimeoutError|ECONNRESET|ECONNREFUSED|socket hang up/i.test(`${f?.name} ${f?.message}`)) {
    return new TransientError(`${what}: ${f?.name ?? 'error'} ${status ?? ''}`.trim(), status ? 'http' : 'network', status);
  }
  if (status === 404 || status === 403 || f?.name === 'NoSuchKey' || f?.name === 'NotFound' || f?.name === 'AccessDenied') {
    return new ImageryError('NOT_FOUND', `${what}: ${f?.name ?? status}`);
  }
  return e;
}

/**
 * An S3 client, or how to make one when the first `s3://` object is read: the AWS SDK is
 * loaded only then, so a process that reads no S3 imagery never loads it.
 */
export type S3ClientSource = S3Client | (() => Promise<S3Client>);

const sdk = () => import('@aws-sdk/client-s3');

export class S3Object implements RangeReadable {
  readonly cacheKey: string;
  private readonly bucket: string;
  private readonly key: string;

  constructor(
    readonly href: string,
    private readonly client: S3ClientSource,
    private readonly retry: RetryPolicy = {},
  ) {
    this.cacheKey = cacheKeyOf(href);
    ({ bucket: this.bucket, key: this.key } = parseS3Href(href));
  }

  private async s3(): Promise<{ client: S3Client; aws: Awaited<ReturnType<typeof sdk>> }> {
    const [client, module] = await Promise.all([typeof this.client === 'function' ? this.client() : this.client, sdk()]);
    return { client, aws: module };
  }

  private async call<T>(fn: () => Promise<T>, what: string): Promise<T> {
    try {
      return await withRetries(async () => {
        try {
          return await fn();
        } catch (e) {
          throw s3Transient(e, what);
        }
      }, this.retry);
    } catch (e) {
      if (e instanceof ImageryError) throw e;
      throw unavailable(this.href, e);
    }
  }

  async size(): Promise<number> {
    const { client, aws } = await this.s3();
    const head = await this.call(() => client.send(new aws.HeadObjectCommand({ Bucket: this.bucket, Key: this.key })), `HEAD ${this.href}`);
    return Number(head.ContentLength ?? 0);
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (length <= 0) return new Uint8Array(0);
    const { client, aws } = await this.s3();
    return this.call(async () => {
      const out = await client.send(new aws.GetObjectCommand({ Bucket: this.bucket, Key: this.key, Range: `bytes=${offset}-${offset + length - 1}` }));
      const bytes = await out.Body!.transformToByteArray();
      if (bytes.byteLength !== length) throw new TransientError(`${this.href}: ${bytes.byteLength} of ${length} bytes`, 'network');
      return bytes;
    }, `GET ${this.href}`);
  }

  async text(): Promise<string> {
    const { client, aws } = await this.s3();
    return this.call(async () => {
      const out = await client.send(new aws.GetObjectCommand({ Bucket: this.bucket, Key: this.key }));
      return out.Body!.transformToString('utf8');
    }, `GET ${this.href}`);
  }
}
