/**
 * Local-folder object store for the embedded mode. Writes are atomic (temp file + rename),
 * so a crash never leaves a half-written result behind a completed job. Folders are 0700 and
 * files 0600: results are readable only through signed URLs, not by other local users.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ObjectStore } from './port.ts';
import { signObjectUrl } from './signing.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDir } from '../privateFiles.ts';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export class FileObjectStore implements ObjectStore {
  constructor(
    private readonly root: string,
    private readonly secret: Buffer,
    /** Path under which the API serves signed downloads, e.g. `/objects`, or an absolute URL. */
    private readonly publicBase: string,
  ) {
    ensurePrivateDir(root);
  }

  private fileOf(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`invalid object key "${key}"`);
    return path.join(this.root, key);
  }

  async put(key: string, body: Buffer | string, contentType: string): Promise<void> {
    const file = this.fileOf(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.promises.writeFile(tmp, body, { mode: PRIVATE_FILE_MODE });
    await fs.promises.writeFile(`${tmp}.type`, contentType, { mode: PRIVATE_FILE_MODE });
    await fs.promises.rename(`${tmp}.type`, `${file}.type`);
    await fs.promises.rename(tmp, file);
  }

  async putFile(key: string, source: string, contentType: string): Promise<void> {
    const file = this.fileOf(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.promises.copyFile(source, tmp);
    await fs.promises.chmod(tmp, PRIVATE_FILE_MODE);
    await fs.promises.writeFile(`${tmp}.type`, contentType, { mode: PRIVATE_FILE_MODE });
    await fs.promises.rename(`${tmp}.type`, `${file}.type`);
    await fs.promises.rename(tmp, file);
  }

  async get(key: string) {
    let file: string;
    try {
      file = this.fileOf(key);
    } catch {
      return null;
    }
    try {
      const stat = await fs.promises.stat(file);
      const contentType = await fs.promises.readFile(`${file}.type`, 'utf8').catch(() => 'application/octet-stream');
      return { body: fs.createReadStream(file), size: stat.size, contentType };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.fileOf(key);
    await fs.promises.rm(file, { force: true });
    await fs.promises.rm(`${file}.type`, { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    // A folder of keys: its files (and their .type companions) are the folder's content.
    if (!prefix.endsWith('/')) throw new Error(`invalid object prefix "${prefix}": a folder ending in /`);
    await fs.promises.rm(this.fileOf(prefix.slice(0, -1)), { recursive: true, force: true });
  }

  async presign(key: string, opts: { expiresInSeconds: number; filename: string; contentType: string }): Promise<string> {
    this.fileOf(key);
    return signObjectUrl(this.publicBase, this.secret, key, {
      expires: Math.floor(Date.now() / 1000) + opts.expiresInSeconds,
      filename: opts.filename,
      type: opts.contentType,
    });
  }
}
