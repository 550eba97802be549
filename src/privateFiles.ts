/**
 * The data directory holds the store, secrets and results: only the service's user may
 * read it. Directories are 0700 and files 0600, whatever the umask.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) 0700; an existing `dir` is narrowed to 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Narrows an existing file to 0600; a missing one is left missing. */
export function restrictFile(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * A cache folder (e.g. under the shared temp folder) this process may trust: made 0700 if
 * missing; an existing one only when it is a directory of this process's user that no one
 * else may write — another local user could otherwise plant entries it would read as its own.
 */
export function ownPrivateDir(dir: string): boolean {
  try {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      st = fs.lstatSync(dir);
    }
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The machine-wide cache folder: what one thread or process computed for every other to read back (trusted only through ownPrivateDir). */
export const MACHINE_CACHE_DIR = path.join(os.tmpdir(), 'sarwatch-cache');

/**
 * Writes `bytes` to `file` aside (a name of this process and thread) and renames it into place,
 * so a reader on another thread or process never sees half a file. False when it could not
 * (read-only or full): a cache then only costs its next computation.
 */
export function writeAside(file: string, bytes: NodeJS.ArrayBufferView): boolean {
  const part = `${file}.${process.pid}.${threadId}.part`;
  try {
    fs.writeFileSync(part, bytes);
    fs.renameSync(part, file);
    return true;
  } catch {
    fs.rmSync(part, { force: true });
    return false;
  }
}
