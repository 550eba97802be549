/**
 * The embedded mode's scene archive folder: the real samples are linked in (not copied),
 * generated demo products are written beside them, and the whole folder is indexed.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Links `samplesDir` into the archive as `samples/` (idempotent; a stale link is replaced). */
export function linkSamples(archiveDir: string, samplesDir: string): boolean {
  fs.mkdirSync(archiveDir, { recursive: true });
  if (!samplesDir || !fs.existsSync(samplesDir)) return false;
  const link = path.join(archiveDir, 'samples');
  const current = fs.lstatSync(link, { throwIfNoEntry: false });
  if (current?.isSymbolicLink()) {
    if (path.resolve(archiveDir, fs.readlinkSync(link)) === path.resolve(samplesDir)) return true;
    fs.unlinkSync(link);
  } else if (current) {
    return true; // a real folder the user put there: leave it alone
  }
  fs.symlinkSync(path.resolve(samplesDir), link, 'dir');
  return true;
}

/**
 * Adds a folder to the archive as a link named after it (`name`, `name-2`, … when taken);
 * returns the link path. A folder already linked is not linked twice.
 */
export function linkIntoArchive(archiveDir: string, folder: string): string {
  const target = path.resolve(folder);
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${folder} is not a folder`);
  fs.mkdirSync(archiveDir, { recursive: true });
  for (const entry of fs.readdirSync(archiveDir)) {
    const p = path.join(archiveDir, entry);
    if (fs.lstatSync(p).isSymbolicLink() && path.resolve(archiveDir, fs.readlinkSync(p)) === target) return p;
  }
  const base = path.basename(target).replace(/[^A-Za-z0-9._-]/g, '_') || 'folder';
  let name = base;
  for (let i = 2; fs.existsSync(path.join(archiveDir, name)); i++) name = `${base}-${i}`;
  const link = path.join(archiveDir, name);
  fs.symlinkSync(target, link, 'dir');
  return link;
}
