/**
 * Indexes an archive folder into a SceneIndexStore, incrementally: a file whose mtime and
 * size are unchanged since the last run is not read again; a file that disappeared takes
 * its scenes with it (unless other files still make them up).
 *
 * Recognised: SAFE folders (a folder holding manifest.safe; not descended into), SAFE zips,
 * RTC GeoTIFF/COG files (OPERA RTC-S1, pyroSAR-named terrain-normalised products), STAC
 * Item JSON files. Everything else is ignored.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SceneIndexStore } from '../port.ts';
import { isStacItem, tryStacItemToScene } from '../stac/item.ts';
import type { FileStamp, IndexedFile, SceneRecord } from '../types.ts';
import { mergeRtcContributions, readRtcGeoTiff, type RtcContribution } from './rtc.ts';
import { readSafeFolder, readSafeZip } from './safe.ts';

export interface IndexArchiveOptions {
  /** Files read in parallel. Default 8. */
  concurrency?: number;
  /** JSON files larger than this are not read as STAC items. Default 10 MB. */
  maxJsonBytes?: number;
  /**
   * Index only these files and folders (absolute paths under the archive folder) instead of
   * walking all of it: a folder watch's changes. A file indexed before under one of them that
   * is gone now is removed, as in a full pass.
   */
  only?: readonly string[];
}

export interface IndexError {
  path: string;
  message: string;
}

export interface IndexArchiveResult {
  /** Scenes new to the index. */
  added: number;
  /** Scenes rebuilt because one of their files is new, changed or gone. */
  updated: number;
  /** Scenes deleted because none of their files remain. */
  removed: number;
  /** Files not read because their mtime and size are unchanged. */
  skipped: number;
  /** Files read that are not Sentinel-1 products (browse images, collections, other zips…). */
  ignored: number;
  /** Files that look like products but could not be indexed; retried on the next run. */
  errors: IndexError[];
  /** Candidate files found (SAFE folders count as one). */
  files: number;
  /** Ids of the scenes new to the index (monitors run on them). */
  addedSceneIds: string[];
}

type Kind = 'safe' | 'zip' | 'tiff' | 'json';

interface Candidate extends FileStamp {
  kind: Kind;
}

type Outcome =
  | { ok: true; record?: SceneRecord; rtc?: RtcContribution; sceneIds: string[] }
  | { ok: false; message: string };

const KIND_RANK: Record<Kind, number> = { safe: 0, zip: 1, tiff: 2, json: 3 };

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Candidate files under root, absolute paths. Hidden entries and node_modules are skipped.
 * Folder links are followed (the embedded archive links the real samples in), each real
 * folder at most once, so a link cycle ends. With `entries` (absolute paths under root),
 * only those files and folders are looked at: what a folder watch saw change.
 */
async function walk(root: string, entries?: readonly string[]): Promise<Map<string, Candidate>> {
  const out = new Map<string, Candidate>();
  const seen = new Set<string>();
  const consider = async (full: string, name: string, isDir: boolean, isFile: boolean): Promise<void> => {
    if (isDir) {
      const manifest = path.join(full, 'manifest.safe');
      if (await exists(manifest)) {
        const m = await stat(manifest);
        const meas = await stat(path.join(full, 'measurement')).catch(() => null);
        // The measurement folder's mtime changes when tiffs are added or removed.
        out.set(full, { path: full, kind: 'safe', mtimeMs: Math.max(m.mtimeMs, meas?.mtimeMs ?? 0), size: m.size });
      } else {
        await visit(full);
      }
      return;
    }
    if (!isFile) return;
    const lower = name.toLowerCase();
    const kind: Kind | null = lower.endsWith('.zip')
      ? 'zip'
      : lower.endsWith('.tif') || lower.endsWith('.tiff')
        ? 'tiff'
        : lower.endsWith('.json')
          ? 'json'
          : null;
    if (!kind) return;
    const s = await stat(full);
    out.set(full, { path: full, kind, mtimeMs: s.mtimeMs, size: s.size });
  };
  const visit = async (dir: string): Promise<void> => {
    const real = await realpath(dir).catch(() => null);
    if (!real || seen.has(real)) return;
    seen.add(real);
    let list;
    try {
      list = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of list) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(dir, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        const s = await stat(full).catch(() => null);
        if (!s) continue;
        isDir = s.isDirectory();
        isFile = s.isFile();
      }
      await consider(full, e.name, isDir, isFile);
    }
  };
  if (!entries) {
    await visit(root);
    return out;
  }
  for (const entry of entries) {
    const rel = path.relative(root, entry);
    if (rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).some((p) => p.startsWith('.') || p === 'node_modules')) continue;
    const s = await stat(entry).catch(() => null);
    if (s) await consider(entry, path.basename(entry), s.isDirectory(), s.isFile());
  }
  return out;
}

async function parseCandidate(c: Candidate, opts: { maxJsonBytes: number }): Promise<Outcome> {
  try {
    switch (c.kind) {
      case 'safe': {
        const record = await readSafeFolder(c.path);
        return { ok: true, record, sceneIds: [record.sceneId] };
      }
      case 'zip': {
        const record = await readSafeZip(c.path);
        return record ? { ok: true, record, sceneIds: [record.sceneId] } : { ok: true, sceneIds: [] };
      }
      case 'tiff': {
        const rtc = await readRtcGeoTiff(c.path);
        return rtc ? { ok: true, rtc, sceneIds: [rtc.sceneId] } : { ok: true, sceneIds: [] };
      }
      case 'json': {
        if (c.size > opts.maxJsonBytes) return { ok: true, sceneIds: [] };
        let value: unknown;
        try {
          value = JSON.parse(await readFile(c.path, 'utf8'));
        } catch {
          return { ok: true, sceneIds: [] }; // not JSON we understand: not a product
        }
        if (!isStacItem(value)) return { ok: true, sceneIds: [] };
        const record = tryStacItemToScene(value, { baseHref: path.dirname(c.path), source: 'local' });
        return record ? { ok: true, record, sceneIds: [record.sceneId] } : { ok: true, sceneIds: [] };
      }
    }
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

async function mapLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function indexArchive(
  dir: string,
  store: SceneIndexStore,
  options: IndexArchiveOptions = {},
): Promise<IndexArchiveResult> {
  const { only, ...rest } = options;
  const opts: Required<Omit<IndexArchiveOptions, 'only'>> = { concurrency: 8, maxJsonBytes: 10 * 1024 * 1024, ...rest };
  const root = path.resolve(dir);
  const rootStat = await stat(root).catch(() => null);
  if (!rootStat?.isDirectory()) throw new Error(`archive folder ${root} does not exist`);
  const scope = only?.map((p) => path.resolve(p));
  const found = await walk(root, scope);
  const before = await store.listIndexedFiles();
  const under = (p: string, dir: string) => p === dir || p.startsWith(dir + path.sep);
  const inRoot = (p: string) => under(p, root) && (!scope || scope.some((e) => under(p, e)));
  const indexed = new Map(before.filter((f) => inRoot(f.path)).map((f) => [f.path, f]));
  const knownScenes = new Set(before.flatMap((f) => f.sceneIds));

  const removedPaths = [...indexed.keys()].filter((p) => !found.has(p));
  const fresh: Candidate[] = [];
  const changed: Candidate[] = [];
  const unchanged: Candidate[] = [];
  for (const c of found.values()) {
    const old = indexed.get(c.path);
    if (!old) fresh.push(c);
    else if (old.mtimeMs !== c.mtimeMs || old.size !== c.size) changed.push(c);
    else unchanged.push(c);
  }

  // Scenes that lose or change a member file are rebuilt from all their files.
  const dirty = new Set<string>();
  for (const p of removedPaths) for (const id of indexed.get(p)!.sceneIds) dirty.add(id);
  for (const c of changed) for (const id of indexed.get(c.path)!.sceneIds) dirty.add(id);

  const outcomes = new Map<string, Outcome>();
  const parseAll = (list: Candidate[]) =>
    mapLimit(list, opts.concurrency, async (c) => {
      outcomes.set(c.path, await parseCandidate(c, opts));
    });
  await parseAll([...fresh, ...changed]);
  for (const o of outcomes.values()) if (o.ok) for (const id of o.sceneIds) dirty.add(id);
  // Unchanged partners of a rebuilt scene (the VV file of an acquisition whose VH is new).
  const partners = unchanged.filter((c) => indexed.get(c.path)!.sceneIds.some((id) => dirty.has(id)));
  await parseAll(partners);
  const rereadPartners = new Set(partners.map((c) => c.path));

  const candidates = [...found.values()].filter((c) => outcomes.has(c.path));
  candidates.sort((a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind] || (a.path < b.path ? -1 : 1));
  const records = new Map<string, SceneRecord>();
  const rtcGroups = new Map<string, RtcContribution[]>();
  const rows: IndexedFile[] = [];
  const errors: IndexError[] = [];
  const failedIndexed: string[] = [];
  let ignored = 0;
  for (const c of candidates) {
    const o = outcomes.get(c.path)!;
    if (!o.ok) {
      errors.push({ path: c.path, message: o.message });
      if (indexed.has(c.path)) failedIndexed.push(c.path);
      continue;
    }
    if (o.sceneIds.length === 0 && !rereadPartners.has(c.path)) ignored++;
    if (o.record && !records.has(o.record.sceneId)) records.set(o.record.sceneId, o.record);
    if (o.rtc) {
      const g = rtcGroups.get(o.rtc.sceneId);
      if (g) g.push(o.rtc);
      else rtcGroups.set(o.rtc.sceneId, [o.rtc]);
    }
    rows.push({ path: c.path, mtimeMs: c.mtimeMs, size: c.size, sceneIds: o.sceneIds });
  }
  for (const [id, parts] of rtcGroups) if (!records.has(id)) records.set(id, mergeRtcContributions(parts));

  const upserted = [...records.values()];
  if (upserted.length > 0 || rows.length > 0) await store.upsertScenes(upserted, rows);
  const toRemove = [...removedPaths, ...failedIndexed];
  if (toRemove.length > 0) await store.removeByPaths(toRemove);

  const after = new Set((await store.listIndexedFiles()).flatMap((f) => f.sceneIds));
  let removed = 0;
  for (const id of knownScenes) if (!after.has(id)) removed++;
  const addedSceneIds = upserted.filter((r) => !knownScenes.has(r.sceneId) && after.has(r.sceneId)).map((r) => r.sceneId);
  const added = addedSceneIds.length;
  const updated = upserted.filter((r) => knownScenes.has(r.sceneId) && after.has(r.sceneId)).length;
  return {
    added,
    updated,
    removed,
    skipped: unchanged.length - partners.length,
    ignored,
    errors,
    files: found.size,
    addedSceneIds,
  };
}
