import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import yauzl from 'yauzl';
import type { GeoTIFF } from 'geotiff';
import { ImageryError } from '../errors.js';
import { FileRangeSource, openLocalTiff, openTiffFromSource } from '../geotiff-source.js';
import { isRemoteHref } from '../remote/access.js';
import { openStacItemContainer } from '../stac/container.js';
import type { SafeContainer } from '../container/types.js';
import { readZipEntries, readZipMemberText, refuseCompressedMember, safeZipMembers, type ZipMember } from '../container/zipMembers.js';

export type { SafeContainer };

function stripSafe(name: string): string {
  return name.replace(/\.zip$/i, '').replace(/\.SAFE$/i, '');
}

class FolderContainer implements SafeContainer {
  constructor(
    readonly location: string,
    readonly productName: string,
    private readonly list: string[],
  ) {}

  files(): string[] {
    return this.list;
  }

  async readText(relativePath: string): Promise<string> {
    try {
      return await readFile(join(this.location, relativePath), 'utf8');
    } catch (cause) {
      throw new ImageryError('INVALID_PRODUCT', `cannot read ${relativePath} in ${this.location}`, { cause });
    }
  }

  openTiff(relativePath: string): Promise<GeoTIFF> {
    return openLocalTiff(join(this.location, relativePath));
  }

  async close(): Promise<void> {}
}

async function listFolder(root: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    // Node 20 names the containing folder `parentPath` (≥20.12) or `path` (older 20.x).
    const parent = (entry as { parentPath?: string }).parentPath ?? (entry as { path?: string }).path ?? root;
    const rel = posix.join(...parent.slice(root.length).split(/[\\/]/).filter(Boolean), entry.name);
    out.push(rel);
  }
  return out.sort();
}

/**
 * Zip members are read lazily, one at a time. A measurement TIFF is served in place by
 * byte range when it is *stored*; a deflated TIFF cannot be read by range, and
 * inflating ~800 MB per polarisation into memory is exactly what tiling avoids, so it
 * is refused with COMPRESSED_ZIP_MEMBER (the caller extracts the product instead).
 */
class ZipContainer implements SafeContainer {
  private readonly members = new Map<string, ZipMember>();
  private readonly sources: FileRangeSource[] = [];

  constructor(
    readonly location: string,
    readonly productName: string,
    private readonly zip: yauzl.ZipFile,
    members: ZipMember[],
  ) {
    for (const m of members) this.members.set(m.relativePath, m);
  }

  files(): string[] {
    return [...this.members.keys()].sort();
  }

  private member(relativePath: string): ZipMember {
    const m = this.members.get(relativePath);
    if (!m) throw new ImageryError('INVALID_PRODUCT', `${relativePath} is not in ${this.location}`);
    return m;
  }

  async readText(relativePath: string): Promise<string> {
    const { entry } = this.member(relativePath);
    try {
      return await readZipMemberText(this.zip, entry);
    } catch (cause) {
      throw new ImageryError('INVALID_PRODUCT', `cannot read ${relativePath} from ${this.location}`, { cause });
    }
  }

  async openTiff(relativePath: string): Promise<GeoTIFF> {
    const { entry } = this.member(relativePath);
    refuseCompressedMember(entry, relativePath, basename(this.location), 'so extract the zip and open the .SAFE folder instead');
    const header = await this.zip.readLocalFileHeaderPromise(entry, { minimal: true });
    const source = new FileRangeSource(this.location, header.fileDataStart, entry.uncompressedSize);
    this.sources.push(source);
    return openTiffFromSource(source, `${relativePath} in ${this.location}`);
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.close()));
    this.sources.length = 0;
    this.zip.close();
  }
}

async function openZip(location: string): Promise<SafeContainer> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(location, { lazyEntries: true, autoClose: false });
  } catch (cause) {
    throw new ImageryError('INVALID_PRODUCT', `cannot open ${location} as a zip`, { cause });
  }
  let listing;
  try {
    listing = safeZipMembers(await readZipEntries(zip), location);
  } catch (e) {
    zip.close();
    throw e;
  }
  const { productName, members } = listing;
  return new ZipContainer(location, productName, zip, members);
}

/**
 * Open a `.SAFE` folder, a folder's `manifest.safe`, a `.zip` of a SAFE product, or the
 * http(s)/s3 URL of a GRD STAC item (its assets seen as the SAFE's files, src/imagery/stac).
 */
export async function openSafeContainer(location: string): Promise<SafeContainer> {
  if (isRemoteHref(location)) return openStacItemContainer(location);
  let info;
  try {
    info = await stat(location);
  } catch (cause) {
    throw new ImageryError('NOT_FOUND', `no such product: ${location}`, { cause });
  }
  if (info.isFile() && /\.zip$/i.test(location)) return openZip(location);
  const root = info.isFile() && basename(location).toLowerCase() === 'manifest.safe' ? dirname(location) : location;
  if (!info.isDirectory() && root === location) {
    throw new ImageryError('INVALID_PRODUCT', `${location} is neither a .SAFE folder nor a .zip`);
  }
  const list = await listFolder(root);
  if (!list.includes('manifest.safe')) {
    throw new ImageryError('INVALID_PRODUCT', `${root} holds no manifest.safe`);
  }
  return new FolderContainer(root, stripSafe(basename(root)), list);
}
