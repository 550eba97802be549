/**
 * Issue 10, item 10: `git clone` and the README's test command pass with nothing beside the
 * repository. The real samples the tests, `npm start` and `npm run eval` read are committed
 * in samples/; only development-only data (src/devData.ts) is looked for outside.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkSamples } from '../../src/catalog/archive.ts';
import { loadConfig } from '../../src/config.ts';
import { devDataset } from '../helpers/devData.ts';
import { REPO_ROOT, S1_DATA, SAMPLES, STAC_EXAMPLES } from '../helpers/samples.ts';
import * as imagery from '../imagery/fixtures.ts';

/**
 * A lookup of data beside the clone: the shared folder one level up, its data folder, the
 * development machine's absolute path to it, or the old override variable. Written so that
 * it does not match this file's own text (this file is scanned too).
 */
const OUTSIDE_LOOKUP = /[.][.][/\\]shared\b|shared[/\\]+data\b|[/\\]work[/\\]shared\b|SARWATCH_SHARED_(?:DATA)\b/;
/** The one file allowed to look outside: development-only data, always behind a skip. */
const DEV_DATA_HELPER = 'src/devData.ts';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(full));
    else if (e.isFile()) out.push(full);
  }
  return out;
}

const rel = (p: string) => path.relative(REPO_ROOT, p).split(path.sep).join('/');

/** Code, configuration and CI: everything that runs when the README's commands run. */
function codeFiles(): string[] {
  const roots = ['src', 'test', 'eval', 'bench', 'training', 'bin', '.ci'].map((d) => path.join(REPO_ROOT, d)).filter((d) => existsSync(d));
  const files = roots.flatMap(filesUnder).filter((f) => /\.(ts|js|mjs|cjs|json)$/.test(f) || rel(f) === '.ci/run');
  for (const f of ['package.json', 'tsconfig.json', 'vitest.config.ts', '.npmrc']) if (existsSync(path.join(REPO_ROOT, f))) files.push(path.join(REPO_ROOT, f));
  return files;
}

/** `git ls-files` of the repository, or null when this is not a git checkout. */
function gitFiles(...args: string[]): string[] | null {
  if (!existsSync(path.join(REPO_ROOT, '.git'))) return null;
  const r = spawnSync('git', ['ls-files', '-z', ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (r.status !== 0) return null;
  return r.stdout.split('\0').filter(Boolean);
}
const IS_GIT_CHECKOUT = gitFiles('--', 'package.json') !== null;
const GIT_NOTE = IS_GIT_CHECKOUT ? '' : ' (SKIPPED: not a git checkout)';

/**
 * Sample paths written literally in tests, eval and bench: `join(S1_DATA | DATA | SAMPLES,
 * '<relative path>')` (test/imagery/fixtures.ts calls S1_DATA `DATA`).
 */
function literalSamplePaths(): { file: string; target: string }[] {
  const bases: Record<string, string> = { S1_DATA, DATA: S1_DATA, SAMPLES };
  const out: { file: string; target: string }[] = [];
  for (const f of codeFiles().filter((f) => /^(test|eval|bench)\//.test(rel(f)))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\bjoin\(\s*(S1_DATA|DATA|SAMPLES)\s*,\s*'([^']+)'/g)) {
      out.push({ file: rel(f), target: path.join(bases[m[1]!]!, m[2]!) });
    }
  }
  return out;
}

describe('issue 10.10: a fresh clone tests itself', () => {
  it('no source, test, eval, bench or CI file looks for data beside the repository, except the dev-only helper', () => {
    // The pattern is not vacuous: it catches each form the lookups had.
    for (const bad of [['..', 'shared', 'data', 's1'].join('/'), `${['', 'work', 'shared'].join('/')}/x`, ['SARWATCH', 'SHARED', 'DATA'].join('_')]) {
      expect(OUTSIDE_LOOKUP.test(bad), bad).toBe(true);
    }
    const files = codeFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => OUTSIDE_LOOKUP.test(readFileSync(f, 'utf8'))).map(rel);
    expect(offenders).toEqual([DEV_DATA_HELPER]);
    // …and that helper is about development-only data only.
    const helper = readFileSync(path.join(REPO_ROOT, DEV_DATA_HELPER), 'utf8');
    expect(helper).toMatch(/oil-csiro-dev/);
    expect(helper).not.toMatch(/\bs1\b|stac-examples/);
  });

  it('the README and the docs name no data path beside the repository; the README has the two commands', () => {
    const dataPath = /shared[/\\]+data\b|SARWATCH_SHARED_(?:DATA)\b/;
    const docs = [path.join(REPO_ROOT, 'README.md'), ...filesUnder(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md'))];
    expect(docs.filter((f) => dataPath.test(readFileSync(f, 'utf8'))).map(rel)).toEqual([]);
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
    expect(readme).toMatch(/samples\/s1\/SOURCES\.md/);
    // CI runs exactly the README's test command and installs nothing beside the clone.
    const ci = readFileSync(path.join(REPO_ROOT, '.ci/run'), 'utf8');
    expect(ci).toMatch(/^(SARWATCH_TEST_REPORT=\S+ )?npm test$/m);
    expect(ci).not.toMatch(/shared/);
  });

  it('every sample path the tests and the eval name exists in samples/', () => {
    const literal = literalSamplePaths();
    expect(literal.length).toBeGreaterThanOrEqual(10);
    const named = [
      ...Object.values(imagery).filter((v): v is string => typeof v === 'string' && v.startsWith(SAMPLES)),
      STAC_EXAMPLES,
      ...literal.map((l) => l.target),
    ];
    expect(named.length).toBeGreaterThanOrEqual(20);
    const missing = named.filter((p) => !existsSync(p)).map(rel);
    expect(missing).toEqual([]);
    for (const p of named) expect(rel(p), p).toMatch(/^samples\//);
  });

  it.skipIf(!IS_GIT_CHECKOUT)(`every sample file is committed and none is git-ignored${GIT_NOTE}`, () => {
    const tracked = new Set(gitFiles('--', 'samples')!);
    const onDisk = filesUnder(SAMPLES).map(rel);
    expect(onDisk.length).toBeGreaterThan(650);
    expect(onDisk.filter((f) => !tracked.has(f))).toEqual([]);
    // An ignore rule (such as an unanchored `data/`) would keep sample folders out of a clone.
    expect(gitFiles('--others', '--ignored', '--exclude-standard', '--', 'samples')).toEqual([]);
  });

  it('each sample folder keeps its licence and is listed in its SOURCES with the Copernicus attribution', () => {
    const sources = readFileSync(path.join(S1_DATA, 'SOURCES.md'), 'utf8');
    expect(sources).toContain('Contains modified Copernicus Sentinel data');
    const folders = readdirSync(S1_DATA, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.sort()).toEqual([
      'grd-metadata-pyrosar',
      'grd-metadata-rome',
      'grd-safe-northsea-ships',
      'rtc-sanfrancisco',
      'rtc-stack-png-enga',
      'rtc-stack-santabarbara',
      'slc-subset',
    ]);
    for (const f of folders) {
      expect(readdirSync(path.join(S1_DATA, f)).some((n) => /^LICEN[CS]E/.test(n)), `${f} LICENSE`).toBe(true);
      expect(sources, `${f} in SOURCES.md`).toMatch(new RegExp(`^\\| ${f} \\|`, 'm'));
    }
    const stac = path.join(SAMPLES, 'stac-examples');
    expect(existsSync(path.join(stac, 'LICENSE'))).toBe(true);
    expect(readFileSync(path.join(stac, 'README.md'), 'utf8')).toContain('Contains modified Copernicus Sentinel data');
    expect(readFileSync(path.join(SAMPLES, 'README.md'), 'utf8')).toContain('Contains modified Copernicus Sentinel data');
  });

  it('samples/ stays lean: no browse images, reports or tables nothing reads, and under 56 MB', () => {
    const files = filesUnder(SAMPLES);
    expect(files.map(rel).filter((f) => /\.(jpe?g|png|pdf|parquet|ya?ml|xsd|aux\.xml|tar\.bz2)$/i.test(f))).toEqual([]);
    const bytes = files.reduce((s, f) => s + statSync(f).size, 0);
    // 51.0 MB today (the full source folders are 56 MB); grows only on purpose.
    expect(bytes).toBeLessThan(56e6);
    expect(bytes).toBeGreaterThan(45e6);
  });

  describe('npm start links the committed samples into the archive', () => {
    const archive = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-fresh-'));
    afterAll(() => rmSync(archive, { recursive: true, force: true }));

    it('the default samples folder is the repository’s samples/s1, and it is linked in', () => {
      const config = loadConfig({ SARWATCH_DATA_DIR: archive });
      expect(config.samplesDir).toBe(S1_DATA);
      expect(linkSamples(archive, config.samplesDir)).toBe(true);
      const link = path.join(archive, 'samples');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(S1_DATA);
      expect(existsSync(path.join(link, path.relative(S1_DATA, imagery.NORTH_SEA_SAFE), 'manifest.safe'))).toBe(true);
    });
  });
});

const oil = devDataset('oil-csiro-dev');
describe.skipIf(!oil.present)(`issue 10.10: development-only data stays outside the clone: the CSIRO oil chips${oil.skipNote}`, () => {
  it('holds the development split its README describes: 1,250 oil and 3,293 no-oil chips', () => {
    const oilChips = readdirSync(path.join(oil.dir, 'oil'));
    const noOil = readdirSync(path.join(oil.dir, 'no_oil'));
    expect(oilChips).toHaveLength(1250);
    expect(noOil).toHaveLength(3293);
    expect(oilChips.every((f) => f.endsWith('_cls_1.jpg'))).toBe(true);
    expect(noOil.every((f) => f.endsWith('_cls_0.jpg'))).toBe(true);
    // Nothing of it is in the repository.
    expect(existsSync(path.join(SAMPLES, oil.name))).toBe(false);
  });
});
