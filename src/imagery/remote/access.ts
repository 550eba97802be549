/**
 * How this process reads remote imagery: which hrefs it signs or authenticates (Planetary
 * Computer SAS tokens, a CDSE bearer token), the S3 client for `s3://` assets, the byte
 * cache, the retry budget. The composition root builds one from the catalog provider's
 * configuration and installs it as the default; imagery code opens remote hrefs through it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { GeoTIFF } from 'geotiff';
import { ImageryError } from '../errors.js';
import { openLocalTiff, parseTiff } from '../geotiff-source.js';
import { ByteCache, type ByteCacheOptions, type RangeReadable } from './byteCache.js';
import { HttpObject, S3Object, type HttpAuth, type S3ClientSource } from './objects.js';
import type { RetryPolicy } from './retry.js';

export interface RemoteAccessOptions {
  /** Signs/authenticates http(s) hrefs; `collection` is the STAC collection the asset belongs to. */
  auth?: {
    sign?: (href: string, collection?: string) => Promise<string>;
    headers?: (href: string) => Promise<Record<string, string>>;
  };
  /**
   * S3 client for `s3://` hrefs, or its factory (called once, at the first s3:// read, so the
   * AWS SDK is loaded only then); default: the SDK's environment credentials and region.
   */
  s3?: S3ClientSource;
  cache?: ByteCache | ByteCacheOptions;
  retry?: RetryPolicy;
  /** Per-request timeout, ms. Default 60 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Which href of a STAC asset to read: Copernicus Data Space gives `s3://eodata/…` as href
   * and an https download link as `alternate.https.href`. Default: the href.
   */
  assetHref?: (asset: { href: string; alternate?: Record<string, { href?: string }> }) => string;
}

export type RemoteObject = RangeReadable & { readonly href: string; text(): Promise<string> };

export function isRemoteHref(href: string): boolean {
  return /^(https?|s3):\/\//i.test(href);
}

export function isHttpUrl(pathOrUrl: string): boolean {
  return /^https?:\/\//i.test(pathOrUrl);
}

export class RemoteAccess {
  readonly cache: ByteCache;
  private s3Client: Promise<S3Client> | null = null;

  constructor(private readonly opts: RemoteAccessOptions = {}) {
    this.cache = opts.cache instanceof ByteCache ? opts.cache : new ByteCache(opts.cache);
  }

  /** The href to read for a STAC asset (see RemoteAccessOptions.assetHref). */
  assetHref(asset: { href: string; alternate?: Record<string, { href?: string }> }): string {
    return this.opts.assetHref ? this.opts.assetHref(asset) : asset.href;
  }

  get retry(): RetryPolicy {
    return this.opts.retry ?? {};
  }

  get fetchImpl(): typeof fetch {
    return this.opts.fetch ?? fetch;
  }

  /** Auth for an asset of `collection` (the SAS token is per collection on Planetary Computer). */
  httpAuth(collection?: string): HttpAuth {
    const a = this.opts.auth;
    return {
      ...(a?.sign ? { sign: (href: string) => a.sign!(href, collection) } : {}),
      ...(a?.headers ? { headers: a.headers } : {}),
    };
  }

  private s3(): Promise<S3Client> {
    const s3 = this.opts.s3;
    this.s3Client ??= typeof s3 === 'function' ? s3() : s3 ? Promise.resolve(s3) : import('@aws-sdk/client-s3').then(({ S3Client }) => new S3Client({}));
    return this.s3Client;
  }

  object(href: string, collection?: string): RemoteObject {
    if (/^s3:\/\//i.test(href)) {
      return new S3Object(href, () => this.s3(), this.retry);
    }
    if (/^https?:\/\//i.test(href)) return new HttpObject(href, this.httpAuth(collection), this.retry, this.opts.timeoutMs, this.fetchImpl);
    throw new ImageryError('NOT_FOUND', `not a remote href: ${href}`);
  }

  /** The whole of a small remote file (XML, JSON). */
  readText(href: string, collection?: string): Promise<string> {
    return this.object(href, collection).text();
  }

  /** A remote TIFF/COG opened by header; its pixels are read by range through the cache. */
  async openTiff(href: string, collection?: string): Promise<GeoTIFF> {
    return parseTiff(new CachedRangeSource(this.object(href, collection), this.cache), href.replace(/\?.*$/, ''));
  }
}

/**
 * geotiff.js source over a remote object: every slice through the block cache. `base` is
 * where the TIFF starts inside the object (a stored member of a remote zip), 0 for a COG.
 */
export class CachedRangeSource {
  constructor(
    private readonly obj: RangeReadable,
    private readonly cache: ByteCache,
    private readonly base = 0,
  ) {}

  async fetch(slices: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
    return Promise.all(
      slices.map(async (s) => {
        const bytes = await this.cache.read(this.obj, this.base + s.offset, s.length);
        // geotiff.js views the result from byte 0: hand over an exact, unshared buffer.
        return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer);
      }),
    );
  }

  get fileSize(): number | null {
    return null;
  }

  async close(): Promise<void> {}
}

let defaultAccess: RemoteAccess | null = null;

/** The process's remote access (installed by the composition root; plain if none was). */
export function remoteAccess(): RemoteAccess {
  defaultAccess ??= new RemoteAccess();
  return defaultAccess;
}

export function setRemoteAccess(access: RemoteAccess | null): void {
  defaultAccess = access;
}

/**
 * Open a local TIFF, or an http(s) / s3 URL: remote files go through the process's
 * RemoteAccess (signing, byte cache, coalesced range requests, retries; a server without
 * range support is an error, not a silent full download).
 */
export function openTiff(pathOrHref: string): Promise<GeoTIFF> {
  return isRemoteHref(pathOrHref) ? remoteAccess().openTiff(pathOrHref) : openLocalTiff(pathOrHref);
}
