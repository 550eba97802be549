/**
 * Keeps the local archive's index current while the service runs: a product copied into
 * the archive folder is indexed within seconds, and only what changed is read — never a
 * walk of the whole archive. fs.watch (recursive) reports the changed paths; each is mapped
 * to the entry to index (its SAFE folder, or the file or folder itself), and changes are
 * gathered for `debounceMs` so a product still being copied is indexed once it settles. A
 * periodic scan of folder mtimes catches what the watch missed (events dropped, watch
 * limits, network file systems): only the folders whose mtime changed are indexed. An entry
 * that failed to index (a zip still being written) is tried again a few times.
 */
import fs from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { IndexArchiveResult } from './indexArchive.ts';

export interface WatchArchiveOptions {
  /** Indexes these entries (absolute paths under the archive): indexArchive's `only`. */
  index(only: string[]): Promise<IndexArchiveResult>;
  /** Told after each index pass that added scenes. */
  onAdded(sceneIds: string[]): Promise<void> | void;
  onError?(e: unknown): void;
  debounceMs?: number;
  fallbackScanMs?: number;
  /** Attempts for an entry whose indexing fails before it waits for its next change. */
  maxRetries?: number;
}

export interface ArchiveWatch {
  /** Indexes what is pending now (tests); resolves when that pass ends. */
  flush(): Promise<void>;
  /** Stops watching; resolves when the index pass under way (if any) has ended. */
  close(): Promise<void>;
}

/** The entry a changed path belongs to: the SAFE folder it is inside, else the path itself. */
export function entryOf(root: string, changed: string): string | null {
  const rel = path.relative(root, changed);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  if (parts.some((p) => p.startsWith('.') || p === 'node_modules')) return null;
  for (let i = 0; i < parts.length; i++) if (parts[i]!.toUpperCase().endsWith('.SAFE')) return path.join(root, ...parts.slice(0, i + 1));
  return changed;
}

export function watchArchive(root: string, opts: WatchArchiveOptions): ArchiveWatch {
  const debounceMs = opts.debounceMs ?? 1000;
  const maxRetries = opts.maxRetries ?? 5;
  const pending = new Set<string>();
  const retries = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const add = (entry: string | null) => {
    if (!entry || closed) return;
    pending.add(entry);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void flush(), debounceMs);
    timer.unref();
  };

  const pass = async () => {
    if (pending.size === 0 || closed) return;
    // An entry inside another pending entry is covered by it.
    const list = [...pending].sort();
    pending.clear();
    const only = list.filter((p, i) => !list.slice(0, i).some((q) => p.startsWith(q + path.sep)));
    try {
      const result = await opts.index(only);
      for (const e of result.errors) {
        const entry = entryOf(root, e.path) ?? e.path;
        const n = (retries.get(entry) ?? 0) + 1;
        if (n > maxRetries) continue;
        retries.set(entry, n);
        add(entry);
      }
      for (const p of only) if (!result.errors.some((e) => e.path === p)) retries.delete(p);
      if (result.addedSceneIds.length) await opts.onAdded(result.addedSceneIds);
    } catch (e) {
      opts.onError?.(e);
    }
  };
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    running = running.then(pass, pass);
    return running;
  };

  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(root, { recursive: true, persistent: false }, (_event, filename) => {
      if (filename) add(entryOf(root, path.join(root, filename.toString())));
    });
    watcher.on('error', (e) => opts.onError?.(e));
  } catch (e) {
    opts.onError?.(e); // no watch (limits, platform): the periodic scan alone keeps the index
  }

  // The fallback: folder mtimes change when entries are added, removed or renamed in them.
  const mtimes = new Map<string, number>();
  const scanFolders = async (dir: string, changed: string[]): Promise<void> => {
    const s = await stat(dir).catch(() => null);
    if (!s?.isDirectory()) return;
    const before = mtimes.get(dir);
    mtimes.set(dir, s.mtimeMs);
    if (before !== undefined && before !== s.mtimeMs) changed.push(dir);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules' || e.name.toUpperCase().endsWith('.SAFE')) continue;
      await scanFolders(path.join(dir, e.name), changed);
    }
  };
  let scanning = false;
  const scan = async () => {
    if (scanning || closed) return;
    scanning = true;
    try {
      const changed: string[] = [];
      await scanFolders(root, changed);
      for (const dir of changed) add(dir);
    } finally {
      scanning = false;
    }
  };
  void scan();
  const fallback = setInterval(() => void scan(), opts.fallbackScanMs ?? 10_000);
  fallback.unref();

  return {
    flush,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      clearInterval(fallback);
      watcher?.close();
      return running;
    },
  };
}
