/** The members of a SAFE zip as yauzl lists them, relative to the folder holding manifest.safe. */
import { basename } from 'node:path';
import type yauzl from 'yauzl';
import { ImageryError } from '../errors.js';

export interface ZipMember {
  entry: yauzl.Entry;
  relativePath: string;
}

/** Every entry of a zip opened with `lazyEntries: true`. */
export function readZipEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

/**
 * The files under the folder that holds manifest.safe (usually `<name>.SAFE/`) and the
 * product name (that folder's, else the zip's name without `.zip`). Throws INVALID_PRODUCT
 * when there is no manifest.
 */
export function safeZipMembers(entries: yauzl.Entry[], location: string): { productName: string; members: ZipMember[] } {
  const manifest = entries.find((e) => /(^|\/)manifest\.safe$/i.test(e.fileName));
  if (!manifest) throw new ImageryError('INVALID_PRODUCT', `${location} holds no manifest.safe`);
  const prefix = manifest.fileName.slice(0, manifest.fileName.length - 'manifest.safe'.length);
  const members: ZipMember[] = [];
  for (const entry of entries) {
    if (entry.fileName.endsWith('/') || !entry.fileName.startsWith(prefix)) continue;
    members.push({ entry, relativePath: entry.fileName.slice(prefix.length) });
  }
  const folder = prefix.replace(/\/$/, '').split('/').pop();
  const name = folder && /\.SAFE$/i.test(folder) ? folder : basename(location.replace(/[?#].*$/, ''));
  return { productName: name.replace(/\.zip$/i, '').replace(/\.SAFE$/i, ''), members };
}

/** A member's text (inflated if it is deflated), read whole. */
export async function readZipMemberText(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<string> {
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** COGs need random access: a deflated measurement cannot be read by window. */
export function refuseCompressedMember(entry: yauzl.Entry, relativePath: string, zipName: string, advice: string): void {
  if (entry.compressionMethod !== 0) {
    throw new ImageryError(
      'COMPRESSED_ZIP_MEMBER',
      `${relativePath} is compressed inside ${zipName} (zip method ${entry.compressionMethod}); windowed reads need random access, ${advice}`,
    );
  }
  if (entry.isEncrypted()) throw new ImageryError('INVALID_PRODUCT', `${relativePath} is encrypted inside ${zipName}`);
}
