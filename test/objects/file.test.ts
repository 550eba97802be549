/**
 * The local-folder object store (embedded mode): deletePrefix removes a folder of keys (a
 * job's tile results, issue 20 §2) and nothing beside it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileObjectStore } from '../../src/objects/file.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-file-objects-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('FileObjectStore.deletePrefix', () => {
  it('deletes every object under the folder, keeps keys that only share its leading characters', async () => {
    const objects = new FileObjectStore(root, Buffer.alloc(32, 1), '/objects');
    const keys = ['tiles/job-1/a.v8', 'tiles/job-1/b.v8'];
    const kept = ['tiles/job-10/a.v8', 'tiles/job-1.v8', 'results/job-1.1.geojson'];
    for (const key of [...keys, ...kept]) await objects.put(key, key, 'application/octet-stream');
    await objects.deletePrefix('tiles/job-1/');
    for (const key of keys) expect(await objects.get(key)).toBeNull();
    expect(fs.existsSync(path.join(root, 'tiles/job-1'))).toBe(false);
    for (const key of kept) {
      const got = await objects.get(key);
      expect(got?.size).toBe(key.length);
      got!.body.destroy();
    }
    await objects.deletePrefix('tiles/job-1/'); // gone already: a no-op
    await expect(objects.deletePrefix('tiles/job-10')).rejects.toThrow(/folder ending in \//);
    await expect(objects.deletePrefix('../')).rejects.toThrow(/invalid object key/);
  });
});
