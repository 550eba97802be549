/**
 * A SAFE product delivered as one zip on a remote server (Copernicus Data Space's `PRODUCT`
 * asset, any `.zip` asset), read in place: yauzl parses the central directory and local
 * headers from byte ranges, all through the process's RemoteAccess (auth, byte cache,
 * retries). Deflated XML members are inflated after a ranged read of their compressed bytes;
 * a stored measurement TIFF is opened by range at its offset inside the zip. A deflated
 * measurement is refused (COMPRESSED_ZIP_MEMBER), as for a local zip: windows need random
 * access. Nothing is ever downloaded whole, and a second open is served by the byte cache.
 */
import { Readable } from 'node:stream';
import type { GeoTIFF } from 'geotiff';
import yauzl from 'yauzl';
import { ImageryError } from '../errors.js';
import { parseTiff } from '../geotiff-source.js';
import { CachedRangeSource, type RemoteAccess, type RemoteObject } from '../remote/access.js';
import type { ByteCache } from '../remote/byteCache.js';
import { cacheKeyOf } from '../remote/objects.js';
import type { SafeContainer } from '../container/types.js';
import { readZipEntries, readZipMemberText, refuseCompressedMember, safeZipMembers, type ZipMember } from '../container/zipMembers.js';

/** Largest piece handed to yauzl per cache read (a member stream is read in these). */
const CHUNK = 4 * 1024 * 1024;

/** yauzl's random-access reader over a remote object, every range through the byte cache. */
class CachedZipReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly obj: RemoteObject,
    private readonly cache: ByteCache,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const { obj, cache } = this;
    return Readable.from(
      (async function* () {
        for (let at = start; at < end; at += CHUNK) {
          const bytes = await cache.read(obj, at, Math.min(CHUNK, end - at));
          yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        }
      })(),
      { objectMode: false },
    );
  }
}

export class RemoteZipContainer implements SafeContainer {
  private readonly members = new Map<string, ZipMember>();
  private readonly texts = new Map<string, Promise<string>>();

  constructor(
    readonly location: string,
    readonly productName: string,
    private readonly zip: yauzl.ZipFile,
    private readonly obj: RemoteObject,
    private readonly access: RemoteAccess,
    members: ZipMember[],
  ) {
    for (const m of members) this.members.set(m.relativePath, m);
  }

  files(): string[] {
    return [...this.members.keys()].sort();
  }

  private get zipName(): string {
    return cacheKeyOf(this.obj.href).split('/').pop() ?? this.obj.href;
  }

  private member(relativePath: string): ZipMember {
    const m = this.members.get(relativePath);
    if (!m) throw new ImageryError('INVALID_PRODUCT', `${relativePath} is not in ${this.zipName}`);
    return m;
  }

  readText(relativePath: string): Promise<string> {
    const { entry } = this.member(relativePath);
    let t = this.texts.get(relativePath);
    if (!t) {
      t = (async () => {
        try {
          return await readZipMemberText(this.zip, entry);
        } catch (cause) {
          if (cause instanceof ImageryError) throw cause;
          throw new ImageryError('INVALID_PRODUCT', `cannot read ${relativePath} from ${this.zipName}: ${(cause as Error).message}`, { cause });
        }
      })();
      this.texts.set(relativePath, t);
      t.catch(() => this.texts.delete(relativePath));
    }
    return t;
  }

  async openTiff(relativePath: string): Promise<GeoTIFF> {
    const { entry } = this.member(relativePath);
    refuseCompressedMember(entry, relativePath, this.zipName, 'and a remote zip is not downloaded whole: read the product from an archive that serves it unzipped');
    const header = await this.zip.readLocalFileHeaderPromise(entry, { minimal: true });
    return parseTiff(new CachedRangeSource(this.obj, this.access.cache, header.fileDataStart), `${relativePath} in ${this.zipName}`);
  }

  async close(): Promise<void> {
    this.zip.close();
  }
}

/** The SAFE container of the zip at `href` (already the href to read: signed/alternate chosen). */
export async function openRemoteZipContainer(href: string, location: string, access: RemoteAccess, collection?: string): Promise<RemoteZipContainer> {
  const obj = access.object(href, collection);
  const size = await access.cache.size(obj);
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(new CachedZipReader(obj, access.cache), size, { lazyEntries: true, autoClose: false });
  } catch (cause) {
    if (cause instanceof ImageryError) throw cause;
    throw new ImageryError('INVALID_PRODUCT', `cannot open ${cacheKeyOf(href)} as a zip: ${(cause as Error).message}`, { cause });
  }
  try {
    const { productName, members } = safeZipMembers(await readZipEntries(zip), cacheKeyOf(href));
    return new RemoteZipContainer(location, productName, zip, obj, access, members);
  } catch (e) {
    zip.close();
    throw e;
  }
}
