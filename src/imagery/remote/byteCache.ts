/**
 * A bounded cache of fetched bytes, in fixed-size blocks, on disk (least recently used out)
 * with a small in-memory layer in front. Blocks are keyed by an object's identity (its URL
 * without the query, so renewed SAS tokens still hit) and block number.
 *
 * - Reads are assembled from blocks; the blocks missing from both layers are fetched in
 *   runs of consecutive blocks, one range request per run: ranges are coalesced, and a COG
 *   is never downloaded whole unless every block of it is asked for.
 * - A block being fetched is shared: concurrent readers (two jobs on one scene) wait for
 *   the same request instead of downloading it twice.
 * - On disk, a block is one file written atomically (tmp + rename); the index is rebuilt
 *   from the folder at start (oldest modification first), so the bound holds across runs.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What the cache needs of a remote object. */
export interface RangeReadable {
  /** Stable identity of the bytes (URL without query string, `s3://bucket/key`). */
  readonly cacheKey: string;
  size(): Promise<number>;
  /** Exactly bytes [offset, offset + length) of the object. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface ByteCacheOptions {
  /** Folder of the on-disk layer; '' or undefined: memory only. */
  dir?: string;
  /** Bound of the on-disk layer in bytes. Default 10 GiB. */
  maxBytes?: number;
  /** Bound of the in-memory layer in bytes. Default 64 MiB. */
  memoryBytes?: number;
  /** Block size in bytes. Default 256 KiB. */
  blockSize?: number;
  /** Largest single range request in bytes (runs are split). Default 16 MiB. */
  maxRequestBytes?: number;
}

export interface ByteCacheStats {
  /** Bytes received from remote objects. */
  bytesFetched: number;
  /** Range requests made. */
  requests: number;
  /** Bytes callers asked for. */
  bytesRequested: number;
  /** Blocks served from memory or disk. */
  blockHits: number;
  /** Blocks that joined a download already in flight. */
  blocksShared: number;
}

class MemoryLru {
  private readonly map = new Map<string, Uint8Array>();
  private bytes = 0;
  constructor(private readonly max: number) {}
  get(key: string): Uint8Array | undefined {
    const v = this.map.get(key);
    if (v) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: Uint8Array): void {
    if (v.byteLength > this.max) return;
    const old = this.map.get(key);
    if (old) this.bytes -= old.byteLength;
    this.map.delete(key);
    this.map.set(key, v);
    this.bytes += v.byteLength;
    for (const [k, b] of this.map) {
      if (this.bytes <= this.max) break;
      this.map.delete(k);
      this.bytes -= b.byteLength;
    }
  }
}

export class ByteCache {
  readonly blockSize: number;
  readonly stats: ByteCacheStats = { bytesFetched: 0, requests: 0, bytesRequested: 0, blockHits: 0, blocksShared: 0 };
  private readonly dir: string;
  private readonly maxBytes: number;
  private readonly maxRequestBytes: number;
  private readonly memory: MemoryLru;
  private readonly inFlight = new Map<string, Promise<Uint8Array>>();
  /** On-disk files in least-recently-used-first order, with sizes. */
  private readonly disk = new Map<string, number>();
  private diskBytes = 0;
  private readonly sizes = new Map<string, Promise<number>>();
  private ready: Promise<void> | null = null;

  constructor(opts: ByteCacheOptions = {}) {
    this.blockSize = opts.blockSize ?? 256 * 1024;
    this.dir = opts.dir ?? '';
    this.maxBytes = opts.maxBytes ?? 10 * 1024 ** 3;
    this.maxRequestBytes = Math.max(this.blockSize, opts.maxRequestBytes ?? 16 * 1024 * 1024);
    this.memory = new MemoryLru(opts.memoryBytes ?? 64 * 1024 * 1024);
  }

  /** Bytes held on disk now. */
  get diskUsage(): number {
    return this.diskBytes;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      if (!this.dir) return;
      await mkdir(this.dir, { recursive: true });
      const files = fs
        .readdirSync(this.dir)
        .filter((f) => f.endsWith('.blk'))
        .map((f) => {
          const st = fs.statSync(path.join(this.dir, f));
          return { f, size: st.size, t: st.mtimeMs };
        })
        .sort((a, b) => a.t - b.t);
      for (const { f, size } of files) {
        this.disk.set(f, size);
        this.diskBytes += size;
      }
      await this.evict();
    })();
    return this.ready;
  }

  /** Size of an object: asked once, then kept beside its blocks (a later process asks nothing). */
  size(obj: RangeReadable): Promise<number> {
    let s = this.sizes.get(obj.cacheKey);
    if (!s) {
      s = (async () => {
        await this.init();
        const meta = this.dir ? path.join(this.dir, `${this.objectHash(obj)}.size`) : '';
        if (meta) {
          const known = Number(await readFile(meta, 'utf8').catch(() => ''));
          if (Number.isInteger(known) && known > 0) return known;
        }
        const n = await obj.size();
        if (meta) await writeFile(meta, String(n)).catch(() => {});
        return n;
      })();
      this.sizes.set(obj.cacheKey, s);
      s.catch(() => this.sizes.delete(obj.cacheKey));
    }
    return s;
  }

  private objectHash(obj: RangeReadable): string {
    return createHash('sha256').update(obj.cacheKey).digest('hex').slice(0, 32);
  }

  private fileName(obj: RangeReadable, block: number): string {
    return `${this.objectHash(obj)}-${block}.blk`;
  }

  /** Bytes [offset, offset + length) of `obj`, clamped to its end. */
  async read(obj: RangeReadable, offset: number, length: number): Promise<Uint8Array> {
    await this.init();
    const size = await this.size(obj);
    const end = Math.min(size, offset + length);
    if (end <= offset) return new Uint8Array(0);
    this.stats.bytesRequested += end - offset;
    const first = Math.floor(offset / this.blockSize);
    const last = Math.floor((end - 1) / this.blockSize);
    const blocks = await this.blocks(obj, size, first, last);
    if (first === last) {
      const b = blocks[0]!;
      const start = offset - first * this.blockSize;
      return b.subarray(start, start + (end - offset));
    }
    const out = new Uint8Array(end - offset);
    let at = 0;
    for (let i = first; i <= last; i++) {
      const b = blocks[i - first]!;
      const s = i === first ? offset - first * this.blockSize : 0;
      const e = i === last ? end - last * this.blockSize : b.byteLength;
      out.set(b.subarray(s, e), at);
      at += e - s;
    }
    return out;
  }

  /** Blocks first … last: from memory, from disk, joined in flight, or fetched in runs. */
  private async blocks(obj: RangeReadable, size: number, first: number, last: number): Promise<Uint8Array[]> {
    const result: Promise<Uint8Array>[] = [];
    const missing: number[] = [];
    for (let i = first; i <= last; i++) {
      const name = this.fileName(obj, i);
      const mem = this.memory.get(name);
      if (mem) {
        this.stats.blockHits++;
        result.push(Promise.resolve(mem));
        continue;
      }
      const pending = this.inFlight.get(name);
      if (pending) {
        this.stats.blocksShared++;
        result.push(pending);
        continue;
      }
      if (this.disk.has(name)) {
        const fromDisk = this.readDisk(name).then((b) => b ?? this.fetchRun(obj, size, i, i).then((r) => r[0]!));
        this.track(name, fromDisk);
        result.push(fromDisk);
        continue;
      }
      missing.push(i);
      result.push(null as unknown as Promise<Uint8Array>); // filled below
    }
    // Runs of consecutive missing blocks, each at most maxRequestBytes.
    const perRequest = Math.max(1, Math.floor(this.maxRequestBytes / this.blockSize));
    let k = 0;
    while (k < missing.length) {
      let j = k;
      while (j + 1 < missing.length && missing[j + 1] === missing[j]! + 1 && j + 1 - k < perRequest) j++;
      const a = missing[k]!;
      const b = missing[j]!;
      const run = this.fetchRun(obj, size, a, b);
      for (let i = a; i <= b; i++) {
        const one = run.then((r) => r[i - a]!);
        this.track(this.fileName(obj, i), one);
        result[i - first] = one;
      }
      k = j + 1;
    }
    return Promise.all(result);
  }

  private track(name: string, p: Promise<Uint8Array>): void {
    this.inFlight.set(name, p);
    p.then(
      (data) => {
        this.memory.set(name, data);
        if (this.inFlight.get(name) === p) this.inFlight.delete(name);
      },
      () => {
        if (this.inFlight.get(name) === p) this.inFlight.delete(name);
      },
    );
  }

  private async fetchRun(obj: RangeReadable, size: number, a: number, b: number): Promise<Uint8Array[]> {
    const offset = a * this.blockSize;
    const end = Math.min(size, (b + 1) * this.blockSize);
    this.stats.requests++;
    const data = await obj.read(offset, end - offset);
    this.stats.bytesFetched += data.byteLength;
    const out: Uint8Array[] = [];
    for (let i = a; i <= b; i++) {
      const s = (i - a) * this.blockSize;
      // Own copies: blocks outlive the run's buffer independently.
      out.push(data.slice(s, Math.min(data.byteLength, s + this.blockSize)));
    }
    if (this.dir) await Promise.all(out.map((block, i) => this.writeDisk(this.fileName(obj, a + i), block)));
    return out;
  }

  private async readDisk(name: string): Promise<Uint8Array | null> {
    try {
      const buf = await readFile(path.join(this.dir, name));
      const size = this.disk.get(name);
      if (size !== undefined) {
        this.disk.delete(name);
        this.disk.set(name, size);
      }
      this.stats.blockHits++;
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch {
      // Evicted by another process sharing the folder, or damaged: fetch again.
      const size = this.disk.get(name);
      if (size !== undefined) {
        this.disk.delete(name);
        this.diskBytes -= size;
      }
      return null;
    }
  }

  private async writeDisk(name: string, block: Uint8Array): Promise<void> {
    if (block.byteLength > this.maxBytes) return;
    const tmp = path.join(this.dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(tmp, block);
      await rename(tmp, path.join(this.dir, name));
    } catch {
      await unlink(tmp).catch(() => {});
      return; // a full disk only costs a later re-download
    }
    const old = this.disk.get(name);
    if (old !== undefined) this.diskBytes -= old;
    this.disk.delete(name);
    this.disk.set(name, block.byteLength);
    this.diskBytes += block.byteLength;
    await this.evict();
  }

  private async evict(): Promise<void> {
    for (const [name, size] of this.disk) {
      if (this.diskBytes <= this.maxBytes) break;
      this.disk.delete(name);
      this.diskBytes -= size;
      await unlink(path.join(this.dir, name)).catch(() => {});
    }
  }
}
