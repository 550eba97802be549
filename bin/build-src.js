#!/usr/bin/env node
// Precompiles the service's TypeScript (src/, without src/web) into build/ with esbuild: one .js
// per .ts with its source map beside (.js.map: a stack trace names the src/ .ts line when source
// maps are enabled, as bin/sarwatch.js and the pool threads do), the relative `.ts` import
// specifiers rewritten to `.js`, every other file (models'
// .json, worker-entry.mjs) copied beside, so `import.meta.url`-relative paths resolve the same
// from build/ as from src/ (both sit in the repository's root). `npm install` runs it (the
// `prepare` script); bin/sarwatch.js, the pool threads and the tests' globalSetup check the build
// against the sources before they use it (docs/decisions.md, "Precompiled sources").
//
//   node bin/build-src.js            bring build/ up to date (only what changed is redone)
//   node bin/build-src.js --check    exit 1 when build/ is not up to date; builds nothing
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SRC_DIR = path.join(ROOT, 'src');
export const BUILD_DIR = path.join(ROOT, 'build');
/** What the build records of the sources it was made from (relative path → [size, mtime ms]). */
const MANIFEST = '.sources.json';
/** Changes when the way files are built changes (options, rewriting), so older builds count as stale. */
const FORMAT = 3;
/** Folders of src/ that are not the service's: the dashboard is Vite's (bin/build-web.js). */
const SKIP = new Set(['web']);

/** Every file under `srcDir` the build covers (not type declarations), with its size and modification time. */
function sourceFiles(srcDir) {
  const files = new Map();
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!(rel === '' && SKIP.has(e.name))) walk(path.join(dir, e.name), r);
      } else if (e.isFile() && !e.name.endsWith('.d.ts')) {
        const s = fs.statSync(path.join(dir, e.name));
        files.set(r, [s.size, s.mtimeMs]);
      }
    }
  };
  walk(srcDir, '');
  return files;
}

function readManifest(outDir) {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(outDir, MANIFEST), 'utf8'));
    return m && m.format === FORMAT && m.files && typeof m.files === 'object' ? m : null;
  } catch {
    return null;
  }
}

/**
 * How `outDir` stands against `srcDir`: the sources added or changed since it was built and the
 * ones removed. Fresh when both are empty. Costs one stat per source file (a few ms).
 */
export function buildState({ srcDir = SRC_DIR, outDir = BUILD_DIR } = {}) {
  const sources = sourceFiles(srcDir);
  const manifest = readManifest(outDir);
  const built = manifest?.files ?? {};
  const changed = [];
  for (const [rel, [size, mtime]] of sources) {
    const b = built[rel];
    if (!b || b[0] !== size || b[1] !== mtime) changed.push(rel);
  }
  const removed = Object.keys(built).filter((rel) => !sources.has(rel));
  return { fresh: manifest !== null && changed.length === 0 && removed.length === 0, changed, removed, sources };
}

/** The built file of a source: `x/y.ts` → `x/y.js`; other files keep their name. */
export const builtName = (rel) => rel.replace(/\.ts$/, '.js');

/** Writes `data` to `file` through a temporary file and a rename: a reader sees the old file or the new one. */
function writeAtomic(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/**
 * Brings `outDir` up to date with `srcDir`: compiles the added and changed .ts files, copies the
 * other changed files, deletes what was built from removed ones, then records the sources. With
 * `all`, redoes every file. Safe to run in several processes at once (each file and the record
 * are replaced whole). Returns what it did.
 */
export async function build({ srcDir = SRC_DIR, outDir = BUILD_DIR, all = false } = {}) {
  const started = performance.now();
  // The state is taken before any file is read: a source edited during the build is stale next time.
  const state = buildState({ srcDir, outDir });
  if (state.fresh && !all) return { compiled: 0, copied: 0, removed: 0, ms: performance.now() - started };
  const todo = all ? [...state.sources.keys()] : state.changed;
  const ts = todo.filter((r) => r.endsWith('.ts'));
  const others = todo.filter((r) => !r.endsWith('.ts'));
  if (ts.length > 0) {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      absWorkingDir: srcDir,
      entryPoints: ts,
      outbase: '.',
      outdir: outDir,
      // Bundling with every import left external compiles each file on its own while esbuild's
      // parser (not a pattern) finds the import specifiers for the plugin below to rewrite.
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      // A linked map per file, naming its source by a relative path (../src/x/y.ts) and without
      // the source's text: Node maps a stack's frames with it and reads the line from src/.
      sourcemap: 'linked',
      sourcesContent: false,
      // What tsconfig.json's target (ES2022) means to tsx: class fields with define semantics. Given
      // here, not read from the file, which an install may lack (deploy/Dockerfile copies no tsconfig.json).
      tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
      plugins: [
        {
          name: 'external-js',
          setup(b) {
            b.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined;
              const spec = /^\.\.?\//.test(args.path) ? builtName(args.path) : args.path;
              return { path: spec, external: true };
            });
          },
        },
      ],
    });
    for (const f of result.outputFiles) writeAtomic(f.path, f.contents);
  }
  for (const rel of others) writeAtomic(path.join(outDir, rel), fs.readFileSync(path.join(srcDir, rel)));
  for (const rel of state.removed) {
    fs.rmSync(path.join(outDir, builtName(rel)), { force: true });
    if (rel.endsWith('.ts')) fs.rmSync(path.join(outDir, `${builtName(rel)}.map`), { force: true });
  }
  writeAtomic(path.join(outDir, MANIFEST), JSON.stringify({ format: FORMAT, files: Object.fromEntries(state.sources) }));
  return { compiled: ts.length, copied: others.length, removed: state.removed.length, ms: performance.now() - started };
}

/**
 * The build folder's URL when it is up to date with the sources, rebuilt first when it is not;
 * null when it cannot be brought up to date (no esbuild, a read-only folder): the caller then
 * runs the sources through tsx. `rebuild: false` only checks.
 */
export async function freshBuild({ srcDir = SRC_DIR, outDir = BUILD_DIR, rebuild = true } = {}) {
  const url = pathToFileURL(outDir + path.sep);
  if (buildState({ srcDir, outDir }).fresh) return { url, note: null };
  if (!rebuild) return { url: null, note: 'build/ is older than src/' };
  try {
    await build({ srcDir, outDir });
    return { url, note: null };
  } catch (e) {
    return { url: null, note: `build/ is older than src/ and could not be rebuilt (${e?.message ?? e})` };
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!fs.existsSync(SRC_DIR)) {
    // An install before the sources are in (deploy/Dockerfile copies src/ after `npm install`, then runs this).
    console.log('sarwatch: no src/ here yet, so nothing is precompiled; run `node bin/build-src.js` once it is.');
    process.exit(0);
  }
  if (process.argv.includes('--check')) {
    const s = buildState();
    if (!s.fresh) console.error(`sarwatch: build/ is not up to date: ${s.changed.length} changed, ${s.removed.length} removed (${[...s.changed, ...s.removed].slice(0, 5).join(', ')})`);
    process.exit(s.fresh ? 0 : 1);
  }
  const r = await build({ all: process.argv.includes('--all') });
  console.log(`sarwatch: sources built into build/ (${r.compiled} compiled, ${r.copied} copied, ${r.removed} removed) in ${(r.ms / 1000).toFixed(1)} s`);
}
