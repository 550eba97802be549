import { open, type FileHandle } from 'node:fs/promises';
import { GeoTIFF, fromFile, fromUrl } from 'geotiff';
import { ImageryError } from './errors.js';

/** The source type geotiff.js parses from (its BaseSource is not exported by name). */
export type TiffSource = Parameters<typeof GeoTIFF.fromSource>[0];

interface Slice {
  offset: number;
  length: number;
}

/**
 * Random access to a byte range of a file: a member stored (not compressed) inside a zip,
 * read in place so that a measurement TIFF is never extracted or loaded whole.
 */
export class FileRangeSource {
  private handle: Promise<FileHandle> | null = null;

  constructor(
    private readonly path: string,
    private readonly start: number,
    private readonly size: number,
  ) {}

  private file(): Promise<FileHandle> {
    this.handle ??= open(this.path, 'r');
    return this.handle;
  }

  async fetch(slices: Slice[], signal?: AbortSignal): Promise<ArrayBuffer[]> {
    return Promise.all(slices.map(async (slice) => (await this.fetchSlice(slice, signal)).data));
  }

  async fetchSlice(slice: Slice, _signal?: AbortSignal): Promise<Slice & { data: ArrayBuffer }> {
    // geotiff.js asks for header-sized chunks that may run past the end: clamp like a file would.
    const length = Math.max(0, Math.min(slice.length, this.size - slice.offset));
    const data = new ArrayBuffer(length);
    if (length > 0) {
      const handle = await this.file();
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(new Uint8Array(data, done), 0, length - done, this.start + slice.offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
    }
    return { offset: slice.offset, length, data };
  }

  get fileSize(): number {
    return this.size;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) await (await handle).close();
  }
}

export function isHttpUrl(pathOrUrl: string): boolean {
  return /^https?:\/\//i.test(pathOrUrl);
}

/** Open a local TIFF or an http(s) URL (range requests; no full download). */
export async function openTiff(pathOrUrl: string): Promise<GeoTIFF> {
  try {
    if (isHttpUrl(pathOrUrl)) {
      // allowFullFile:false: a server without range support is an error, not a silent full download.
      return await fromUrl(pathOrUrl, { allowFullFile: false });
    }
    return await fromFile(pathOrUrl);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException)?.code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_PRODUCT';
    throw new ImageryError(code, `cannot open GeoTIFF ${pathOrUrl}: ${(cause as Error)?.message ?? cause}`, { cause });
  }
}

export async function openTiffFromSource(source: FileRangeSource, what: string): Promise<GeoTIFF> {
  try {
    return await GeoTIFF.fromSource(source as unknown as TiffSource);
  } catch (cause) {
    await source.close();
    throw new ImageryError('INVALID_PRODUCT', `cannot parse GeoTIFF ${what}: ${(cause as Error)?.message ?? cause}`, { cause });
  }
}
