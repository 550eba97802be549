import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openSafeProduct, parseCalibration } from '../../src/imagery/safe/index.ts';
import { cachedParse, installedVersion, parseCacheKey, parsersDigest, setParseCacheDir } from '../../src/imagery/safe/parseCache.ts';
import { NORTH_SEA_SAFE } from './fixtures.ts';

// Each analysis thread of each worker opens a scene's product; its XML is parsed once per
// machine and read back by the others (issue 20 §2). What comes back must be what the parser gives.
describe('SAFE XML parse cache', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-parsecache-'));
  const calibrationFile = fs.readdirSync(path.join(NORTH_SEA_SAFE, 'annotation/calibration')).find((f) => f.startsWith('calibration-'))!;
  const xml = fs.readFileSync(path.join(NORTH_SEA_SAFE, 'annotation/calibration', calibrationFile), 'utf8');
  afterAll(() => {
    setParseCacheDir(path.join(os.tmpdir(), 'sarwatch-cache', 'safe-xml'));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('parses once, then reads back exactly what the parser gave (typed arrays included)', () => {
    setParseCacheDir(dir);
    const parse = vi.fn((x: string) => parseCalibration(x));
    const first = cachedParse('calibration', xml, parse);
    const second = cachedParse('calibration', xml, parse);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(second).not.toBe(first);
    expect(second).toEqual(parseCalibration(xml));
    expect(second.vectors[0]!.sigmaNought).toBeInstanceOf(Float32Array);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.v8'))).toHaveLength(1);
  });

  it('parses again for other XML or another kind', () => {
    setParseCacheDir(dir);
    const parse = vi.fn((x: string) => x.length);
    expect(cachedParse('calibration', `${xml} `, parse)).toBe(xml.length + 1);
    expect(cachedParse('noise', xml, parse)).toBe(xml.length);
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('names a kept parse by the installed fast-xml-parser version too: after an update of it, a kept parse is a miss', () => {
    setParseCacheDir(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../node_modules/fast-xml-parser/package.json'), 'utf8')) as { version: string };
    expect(installedVersion('fast-xml-parser')).toBe(pkg.version);
    expect(installedVersion('no-such-package-sarwatch')).toBeNull();
    const installed = parsersDigest();
    expect(installed).toMatch(/^[0-9a-f]{16}$/);
    expect(parsersDigest(pkg.version)).toBe(installed);
    const bumped = parsersDigest(`${pkg.version}-next`);
    expect(bumped).toMatch(/^[0-9a-f]{16}$/);
    expect(bumped).not.toBe(installed);
    expect(parseCacheKey(bumped!, 'calibration', xml)).not.toBe(parseCacheKey(installed!, 'calibration', xml));
    // What cachedParse keeps is named by the installed version's key.
    cachedParse('calibration', xml, parseCalibration);
    const kept = fs.readdirSync(dir).filter((f) => f.startsWith('calibration-'));
    expect(kept).toContain(`calibration-${parseCacheKey(installed!, 'calibration', xml)}.v8`);
    expect(kept).not.toContain(`calibration-${parseCacheKey(bumped!, 'calibration', xml)}.v8`);
    // No version to be read: nothing is cached under a key that would outlive an update.
    expect(parsersDigest(null)).toBeNull();
  });

  it('parses every time when the folder cannot be written, and gives the same', () => {
    const file = path.join(dir, 'not-a-folder');
    fs.writeFileSync(file, '');
    setParseCacheDir(file);
    const parse = vi.fn((x: string) => parseCalibration(x));
    expect(cachedParse('calibration', xml, parse)).toEqual(cachedParse('calibration', xml, parse));
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('trusts no folder others may write: parses every time and keeps nothing there', () => {
    const open = path.join(dir, 'world-writable');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    setParseCacheDir(open);
    const parse = vi.fn((x: string) => parseCalibration(x));
    expect(cachedParse('calibration', xml, parse)).toEqual(cachedParse('calibration', xml, parse));
    expect(parse).toHaveBeenCalledTimes(2);
    expect(fs.readdirSync(open)).toEqual([]);
  });

  it('opens the same product from kept parses as from the XML', async () => {
    setParseCacheDir('');
    const direct = await openSafeProduct(NORTH_SEA_SAFE);
    setParseCacheDir(dir);
    await (await openSafeProduct(NORTH_SEA_SAFE)).close();
    const kept = await openSafeProduct(NORTH_SEA_SAFE);
    try {
      for (const p of direct.polarisations) {
        expect(kept.bands[p]!.annotation).toEqual(direct.bands[p]!.annotation);
        expect(kept.bands[p]!.calibration).toEqual(direct.bands[p]!.calibration);
        expect(kept.bands[p]!.noise).toEqual(direct.bands[p]!.noise);
      }
      expect(kept.footprint).toEqual(direct.footprint);
    } finally {
      await direct.close();
      await kept.close();
    }
  });
});
