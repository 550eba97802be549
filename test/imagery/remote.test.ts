/**
 * The pieces of remote reading on their own: the byte cache (bound, LRU, coalescing, one
 * download shared by concurrent readers), retries (backoff, jitter, Retry-After), Planetary
 * Computer's SAS signer against the stand-in's token endpoint, and the ZSTD decoder.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanetaryComputerSigner } from '../../src/catalog/providers/planetaryComputerSas.ts';
import { ZstdDecoder } from '../../src/imagery/geotiff-source.ts';
import { backoffDelay, ByteCache, TransientError, withRetries, type RangeReadable } from '../../src/imagery/index.ts';
import { startStandIn, type StandIn } from './standIn.ts';
import { zstdRawFrame } from './zstdCog.ts';

/** An in-memory object that counts range reads and can be slowed down. */
function memoryObject(size: number, key = 'mem://object'): RangeReadable & { reads: { offset: number; length: number }[]; gate: Promise<void> | null } {
  const bytes = new Uint8Array(size).map((_, i) => (i * 7) & 0xff);
  const obj = {
    cacheKey: key,
    reads: [] as { offset: number; length: number }[],
    gate: null as Promise<void> | null,
    async size() {
      return size;
    },
    async read(offset: number, length: number) {
      obj.reads.push({ offset, length });
      if (obj.gate) await obj.gate;
      return bytes.slice(offset, offset + length);
    },
  };
  return obj;
}

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-remote-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('ByteCache', () => {
  it('coalesces the missing blocks of a read into one range request and returns exact bytes', async () => {
    const cache = new ByteCache({ blockSize: 1024 });
    const obj = memoryObject(10_000);
    const got = await cache.read(obj, 1500, 5000);
    expect(Array.from(got.subarray(0, 3))).toEqual([(1500 * 7) & 0xff, (1501 * 7) & 0xff, (1502 * 7) & 0xff]);
    expect(got.byteLength).toBe(5000);
    // Blocks 1..6 in one request.
    expect(obj.reads).toEqual([{ offset: 1024, length: 6 * 1024 }]);
    // A read inside those blocks is served without a request; the tail is clamped to the object.
    await cache.read(obj, 2000, 100);
    expect(obj.reads).toHaveLength(1);
    expect((await cache.read(obj, 9_990, 100)).byteLength).toBe(10);
    expect(obj.reads[1]).toEqual({ offset: 9 * 1024, length: 10_000 - 9 * 1024 });
  });

  it('concurrent readers of the same bytes share one download', async () => {
    const cache = new ByteCache({ blockSize: 1024 });
    const obj = memoryObject(8192, 'mem://shared');
    let open!: () => void;
    obj.gate = new Promise((r) => (open = r));
    const a = cache.read(obj, 0, 8192);
    const b = cache.read(obj, 0, 8192);
    await new Promise((r) => setTimeout(r, 10));
    open();
    const [x, y] = await Promise.all([a, b]);
    expect(Buffer.from(x).equals(Buffer.from(y))).toBe(true);
    expect(obj.reads).toHaveLength(1);
    expect(cache.stats.blocksShared).toBe(8);
    expect(cache.stats.bytesFetched).toBe(8192);
  });

  it('stays within its disk bound, least recently used out, and a new process finds what is left', async () => {
    const dir = path.join(tmp, 'lru');
    const cache = new ByteCache({ dir, blockSize: 1024, maxBytes: 4 * 1024, memoryBytes: 0 });
    const obj = memoryObject(16 * 1024, 'mem://lru');
    await cache.read(obj, 0, 2048); // blocks 0, 1
    await cache.read(obj, 4096, 2048); // blocks 4, 5
    await cache.read(obj, 0, 1024); // block 0 used again
    await cache.read(obj, 8192, 1024); // block 8: evicts block 1 (least recently used)
    expect(cache.diskUsage).toBeLessThanOrEqual(4 * 1024);
    expect(readdirSync(dir).filter((f) => f.endsWith('.blk'))).toHaveLength(4);
    const again = new ByteCache({ dir, blockSize: 1024, maxBytes: 4 * 1024, memoryBytes: 0 });
    const obj2 = memoryObject(16 * 1024, 'mem://lru');
    await again.read(obj2, 0, 1024);
    await again.read(obj2, 8192, 1024);
    expect(obj2.reads).toHaveLength(0);
    await again.read(obj2, 1024, 1024);
    expect(obj2.reads).toEqual([{ offset: 1024, length: 1024 }]);
  });
});

describe('retries', () => {
  it('exponential backoff with full jitter, capped; Retry-After honoured; non-transient errors not retried', async () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, { baseDelayMs: 100, maxDelayMs: 500, random: () => 0.999 }))).toEqual([99, 199, 399, 499, 499]);
    const waits: number[] = [];
    const policy = { attempts: 4, baseDelayMs: 100, random: () => 0.5, sleep: async (ms: number) => void waits.push(ms) };
    let n = 0;
    const value = await withRetries(async () => {
      n++;
      if (n === 1) throw new TransientError('throttled', 'http', 429, 1500);
      if (n === 2) throw new TransientError('down', 'http', 503);
      return 'ok';
    }, policy);
    expect(value).toBe('ok');
    expect(waits).toEqual([1500, 100]);
    await expect(withRetries(async () => { throw new Error('bad request'); }, policy)).rejects.toThrow('bad request');
    let m = 0;
    await expect(withRetries(async () => { m++; throw new TransientError('down', 'http', 503); }, policy)).rejects.toBeInstanceOf(TransientError);
    expect(m).toBe(4);
  });
});

describe('Planetary Computer SAS signer against the stand-in token endpoint', () => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startStandIn();
  });
  afterAll(() => standIn.close());

  it('one token per collection, cached, shared by concurrent callers, renewed before msft:expiry', async () => {
    let now = Date.now();
    standIn.tokenLifetimeS = 3600;
    const signer = new PlanetaryComputerSigner({ tokenUrl: `${standIn.url}/api/sas/v1/token`, now: () => now, unsignedPrefixes: [`${standIn.url}/api/stac/v1`] });
    const href = 'https://sentinel1euwest.blob.core.windows.net/s1-grd/GRD/2022/6/12/IW/DV/X/measurement/iw-vh.tiff';
    const [a, b] = await Promise.all([signer.sign(href), signer.sign(href)]);
    expect(a).toBe(b);
    expect(a).toMatch(/^https:\/\/sentinel1euwest\.blob\.core\.windows\.net\/.*\?st=.*&sig=sentinel-1-grd-\d+$/);
    expect(signer.requests).toBe(1);
    // RTC assets: their own collection's token (learned from the item, or given).
    signer.remember('https://sentinel1euwestrtc.blob.core.windows.net/sentinel1-grd-rtc/x/vv.tif', 'sentinel-1-rtc');
    expect(await signer.sign('https://sentinel1euwestrtc.blob.core.windows.net/sentinel1-grd-rtc/y/vh.tif')).toMatch(/sig=sentinel-1-rtc-/);
    expect(signer.requests).toBe(2);
    // The STAC API and already signed hrefs are left alone.
    expect(await signer.sign(`${standIn.url}/api/stac/v1/collections/sentinel-1-grd/items/X`)).not.toMatch(/sig=/);
    expect(await signer.sign(a)).toBe(a);
    // Four minutes before expiry (inside the 5-minute margin): renewed, once.
    now += 3600_000 - 4 * 60_000;
    const [c, d] = await Promise.all([signer.sign(href), signer.sign(href)]);
    expect(c).toBe(d);
    expect(c).not.toBe(a);
    expect(signer.requests).toBe(3);
  });

  it('a token endpoint answering 503 is retried, then a CatalogError', async () => {
    const signer = new PlanetaryComputerSigner({ tokenUrl: `${standIn.url}/api/sas/v1/token`, retry: { attempts: 2, sleep: async () => {} } });
    standIn.inject(/\/api\/sas\/v1\/token\//, [503, 503]);
    await expect(signer.token('sentinel-1-grd')).rejects.toMatchObject({ code: 'CATALOG_UNAVAILABLE', status: 503 });
    standIn.inject(/\/api\/sas\/v1\/token\//, [503]);
    expect(await signer.token('sentinel-1-grd')).toMatch(/sig=sentinel-1-grd-/);
  });
});

describe('ZSTD decoder (TIFF compression 50000, zstddec)', () => {
  it('decodes a frame of raw blocks spanning several 128 KiB blocks', async () => {
    const data = new Uint8Array(300_000).map((_, i) => (i * 31) & 0xff);
    const decoder = new ZstdDecoder({ tileWidth: 1000, tileHeight: 150, bitsPerSample: 16, planarConfiguration: 1, predictor: 1, samplesPerPixel: 1 } as never);
    const frame = zstdRawFrame(data);
    const out = new Uint8Array(await decoder.decodeBlock(frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength)));
    expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
  });
});
