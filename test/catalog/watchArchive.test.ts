/**
 * The local archive's folder watch (issue 21 §1): changed paths map to the entries to index
 * (the SAFE folder a file is in), indexArchive's `only` reads just those entries (and drops
 * what is gone under them), new scenes are reported, and the mtime scan finds a product the
 * watch did not report.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexArchive, MemorySceneIndexStore } from '../../src/catalog/index.ts';
import { entryOf, watchArchive } from '../../src/catalog/local/watchArchive.ts';
import { stacItem, type FixtureScene } from '../helpers/stacFixtures.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-watch-'));
  dirs.push(d);
  return d;
}
const scene = (n: number): FixtureScene => ({
  id: `S1A_IW_GRDH_1SDV_202401${String(n).padStart(2, '0')}T173300_202401${String(n).padStart(2, '0')}T173325_052000_064000_AA${String(n).padStart(2, '0')}`,
  productType: 'GRD',
  start: `2024-01-${String(n).padStart(2, '0')}T17:33:00Z`,
  bbox: [2, 51, 3, 52],
});
const write = (dir: string, s: FixtureScene) => {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${s.id}.json`), JSON.stringify(stacItem(s)));
};

describe('entryOf', () => {
  it('maps a file inside a SAFE folder to the folder, a plain file to itself, hidden paths and paths outside to nothing', () => {
    const root = '/a/archive';
    expect(entryOf(root, '/a/archive/grd/X.SAFE/measurement/s1a-iw-grd-vv.tiff')).toBe('/a/archive/grd/X.SAFE');
    expect(entryOf(root, '/a/archive/grd/X.SAFE')).toBe('/a/archive/grd/X.SAFE');
    expect(entryOf(root, '/a/archive/items/y.json')).toBe('/a/archive/items/y.json');
    expect(entryOf(root, '/a/archive/.staging/X.SAFE/manifest.safe')).toBeNull();
    expect(entryOf(root, '/a/other/y.json')).toBeNull();
    expect(entryOf(root, '/a/archive')).toBeNull();
  });
});

describe("indexArchive's `only`", () => {
  it('reads only the named entries, reports the scenes they add, and removes an indexed file gone from under them', async () => {
    const root = tmp();
    write(path.join(root, 'a'), scene(1));
    write(path.join(root, 'b'), scene(2));
    const store = new MemorySceneIndexStore();
    expect((await indexArchive(root, store)).addedSceneIds.sort()).toEqual([scene(1).id, scene(2).id].sort());
    write(path.join(root, 'a'), scene(3));
    write(path.join(root, 'b'), scene(4));
    fs.rmSync(path.join(root, 'a', `${scene(1).id}.json`));
    const r = await indexArchive(root, store, { only: [path.join(root, 'a')] });
    expect(r.addedSceneIds).toEqual([scene(3).id]); // b/ was not looked at
    expect(r.removed).toBe(1);
    expect(r.files).toBe(1);
    expect((await store.listIndexedFiles()).map((f) => path.basename(f.path)).sort()).toEqual([`${scene(2).id}.json`, `${scene(3).id}.json`].sort());
    // A single file entry.
    expect((await indexArchive(root, store, { only: [path.join(root, 'b', `${scene(4).id}.json`)] })).addedSceneIds).toEqual([scene(4).id]);
  });
});

describe('watchArchive', () => {
  it('a product written into the archive is indexed and reported once, through the watch', async () => {
    const root = tmp();
    const store = new MemorySceneIndexStore();
    await indexArchive(root, store);
    const added: string[][] = [];
    const indexed: string[][] = [];
    const w = watchArchive(root, {
      index: async (only) => (indexed.push(only), indexArchive(root, store, { only })),
      onAdded: (ids) => void added.push(ids),
      debounceMs: 100,
    });
    try {
      write(path.join(root, 'incoming'), scene(5));
      for (let i = 0; i < 600 && added.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(added).toEqual([[scene(5).id]]);
      expect(indexed.flat().every((p) => p.startsWith(path.join(root, 'incoming')))).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('a watch whose file events are lost: the folder-mtime scan hands in the changed folder, and its new product is found', async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, 'deep', 'er'), { recursive: true });
    fs.mkdirSync(path.join(root, 'probe'));
    const store = new MemorySceneIndexStore();
    await indexArchive(root, store);
    const added: string[] = [];
    const indexed: string[][] = [];
    // fs.watch events are ignored here (index only through the scan's entries): a watch that dropped them.
    const w = watchArchive(root, {
      index: async (only) => {
        indexed.push(only);
        return indexArchive(root, store, { only: only.filter((p) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory()) });
      },
      onAdded: (ids) => void added.push(...ids),
      debounceMs: 50,
      fallbackScanMs: 200,
    });
    try {
      // The first scan records the mtimes; a product written before it has looked at deep/er
      // would be part of its baseline and never found (a 100 ms sleep assumed it done). Scans
      // run one after another, so once a later one reports a change in probe/, the first is
      // over: files are added to probe/ until a scan hands the folder in.
      const probe = path.join(root, 'probe');
      for (let i = 0; !indexed.flat().includes(probe); i++) {
        if (i >= 600) throw new Error('no scan reported probe/ within 30 s');
        fs.writeFileSync(path.join(probe, `${i}.txt`), '');
        await new Promise((r) => setTimeout(r, 50));
      }
      write(path.join(root, 'deep', 'er'), scene(6));
      for (let i = 0; i < 600 && added.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(added).toEqual([scene(6).id]);
      expect(indexed.flat()).toContain(path.join(root, 'deep', 'er'));
    } finally {
      await w.close();
    }
  });
});
