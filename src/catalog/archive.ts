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
