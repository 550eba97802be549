/**
 * Issue 19 §3 and 20 §2: the `sarwatch` command and the pool threads run the sources
 * precompiled into build/ (bin/build-src.js), never a stale build. First on a small repository
 * made here (its own src/ with a command, a thread task, a JSON asset, a dynamic import; the
 * real bin/ and src/threads/), where sources can be edited, removed and esbuild taken away; then
 * on this repository, whose build the tests' globalSetup brought up to date.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildState } from '../../bin/build-src.js';
import { threadTasks } from '../../src/analysis/engine/selfTest.ts';
import { ThreadPool } from '../../src/threads/pool.ts';
import { REPO_ROOT, SARWATCH_BIN } from '../helpers/cli.ts';

const run = promisify(execFile);

interface Ran {
  out: { main: string; value: number; asset: { model: string }; later: string; stack: string; thread: { url: string; value: number; stack: string } };
  stderr: string;
}

/** Runs `node ARGS…` in `cwd`; its stdout's JSON line and its stderr. */
async function node(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const { stdout, stderr } = await run(process.execPath, args, { cwd, env: { ...process.env, ...env } });
  return { out: JSON.parse(stdout.trim().split('\n').at(-1)!) as Ran['out'], stderr };
}

/** Writes `text` to `file` with a modification time `secondsLater` after the last one, as an editor would. */
function edit(file: string, text: string, secondsLater = 2): void {
  const before = fs.statSync(file).mtime;
  fs.writeFileSync(file, text);
  const t = new Date(before.getTime() + secondsLater * 1000);
  fs.utimesSync(file, t, t);
}

const FILES: Record<string, string> = {
  // bin/sarwatch.js calls the command's runCli (importing it runs nothing).
  'src/cli/main.ts': `import { readFileSync } from 'node:fs';
import { ThreadPool } from '../threads/pool.ts';
import { threadTasks } from '../lib/task.ts';
import { value } from '../lib/value.ts';
import { stackHere } from '../lib/stack.ts';
export async function runCli(argv: string[]): Promise<number> {
  const asset = JSON.parse(readFileSync(new URL('../lib/asset.json', import.meta.url), 'utf8')) as { model: string };
  const pool = new ThreadPool(() => ({ minThreads: 1, maxThreads: 1, idleTimeout: 100 }));
  const thread = await pool.run({ task: threadTasks.where, input: null });
  await pool.close();
  const { later } = await import('../lib/later.ts');
  console.log(JSON.stringify({ main: import.meta.url, value, asset, later, stack: stackHere(), thread }));
  return argv.length;
}
`,
  'src/lib/task.ts': `import { defineThreadTasks } from '../threads/task.ts';
import { value } from './value.ts';
import { stackHere } from './stack.ts';
export const threadTasks = defineThreadTasks(import.meta.url, { where: (): { url: string; value: number; stack: string } => ({ url: import.meta.url, value, stack: stackHere() }) });
`,
  // Its error is made on line 7 of the source, a line the interface's removal moves up in the build.
  'src/lib/stack.ts': `/** Where an error is made. */
export interface Made {
  stack: string;
}

export function stackHere(): string {
  const made: Made = { stack: new Error('here').stack ?? '' };
  return made.stack;
}
`,
  'src/lib/value.ts': 'export const value: number = 1;\n',
  'src/lib/later.ts': "export * from './value.ts';\nexport const later: string = 'dynamic';\n",
  'src/lib/asset.json': '{ "model": "asset beside the module" }\n',
  // The dashboard is Vite's: the build leaves src/web alone (this would not compile).
  'src/web/page.ts': 'this is not TypeScript\n',
};

/** The small repository's command run on its sources (bench/, eval/ and the tests' main thread do so): tsx, runCli. */
const ON_SOURCES = ['--import', 'tsx', '-e', "import('./src/cli/main.ts').then((cli) => cli.runCli([]))"];

let repo: string;
const src = (rel: string) => path.join(repo, 'src', rel);
const out = (rel: string) => path.join(repo, 'build', rel);
const folders = () => ({ srcDir: path.join(repo, 'src'), outDir: path.join(repo, 'build') });

beforeAll(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-precompile-'));
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), text);
  }
  for (const f of ['bin/sarwatch.js', 'bin/build-src.js', 'tsconfig.json', 'package.json', 'src/threads/pool.ts', 'src/threads/task.ts', 'src/threads/worker.ts', 'src/threads/worker-entry.mjs']) {
    fs.mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, f), path.join(repo, f));
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(repo, 'node_modules'));
});

afterAll(() => {
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

describe('precompiled sources (bin/build-src.js)', () => {
  it('builds each source into build/ with its .ts imports rewritten and its assets beside; the command and its thread run build/', async () => {
    expect(buildState(folders()).fresh).toBe(false);
    const { stdout } = await run(process.execPath, ['bin/build-src.js'], { cwd: repo });
    expect(stdout).toMatch(/sources built into build\/ \(8 compiled, 2 copied, 0 removed\)/);
    expect(buildState(folders())).toMatchObject({ fresh: true, changed: [], removed: [] });
    expect(fs.existsSync(out('web'))).toBe(false);
    expect(fs.readFileSync(out('lib/asset.json'), 'utf8')).toBe(FILES['src/lib/asset.json']);
    const main = fs.readFileSync(out('cli/main.js'), 'utf8');
    expect(main).toContain('"../lib/value.js"');
    expect(main).toContain('import("../lib/later.js")');
    expect(main).not.toMatch(/\.ts["']/);
    expect(main).not.toMatch(/: number|as \{/);

    const { out: r, stderr } = await node(repo, ['bin/sarwatch.js']);
    expect(stderr).toBe('');
    expect(r.main).toBe(`file://${out('cli/main.js')}`);
    expect(r.thread).toMatchObject({ url: `file://${out('lib/task.js')}`, value: 1 });
    expect(r).toMatchObject({ value: 1, asset: { model: 'asset beside the module' }, later: 'dynamic' });
    // Source maps: a stack made in build/ names the source's file and line, on the command's thread and on a pool thread.
    const builtLine = fs.readFileSync(out('lib/stack.js'), 'utf8').split('\n').findIndex((l) => l.includes('new Error(')) + 1;
    expect(builtLine).toBeGreaterThan(0);
    expect(builtLine).not.toBe(7);
    expect(fs.readFileSync(out('lib/stack.js'), 'utf8')).toMatch(/\/\/# sourceMappingURL=stack\.js\.map\n$/);
    for (const stack of [r.stack, r.thread.stack]) {
      expect(stack).toMatch(/^Error: here\n/);
      expect(stack).toContain(`${src('lib/stack.ts')}:7:`);
      expect(stack).not.toContain('/build/');
    }
  });

  it('an edited source is rebuilt before the command runs; a thread started from src/ never runs a stale build', async () => {
    edit(src('lib/value.ts'), 'export const value: number = 2;\n');
    expect(buildState(folders())).toMatchObject({ fresh: false, changed: ['lib/value.ts'], removed: [] });
    // A main thread on the sources (bench/, eval/, the tests): the stale build is not used, the thread compiles the sources.
    const onSources = await node(repo, ON_SOURCES);
    expect(onSources.out.thread).toMatchObject({ url: `file://${src('lib/task.ts')}`, value: 2 });
    expect(buildState(folders()).fresh).toBe(false);
    // The command rebuilds what changed, then runs build/.
    const { out: r, stderr } = await node(repo, ['bin/sarwatch.js']);
    expect(stderr).toBe('');
    expect(r.main).toBe(`file://${out('cli/main.js')}`);
    expect(r.value).toBe(2);
    expect(r.thread).toMatchObject({ url: `file://${out('lib/task.js')}`, value: 2 });
    expect(buildState(folders()).fresh).toBe(true);
    // Now up to date, the build is what the thread runs.
    expect((await node(repo, ON_SOURCES)).out.thread).toMatchObject({ url: `file://${out('lib/task.js')}`, value: 2 });
  });

  it('a removed source takes its built file with it', async () => {
    fs.writeFileSync(src('lib/extra.ts'), 'export const extra = 1;\n');
    await node(repo, ['bin/sarwatch.js']);
    expect(fs.existsSync(out('lib/extra.js'))).toBe(true);
    expect(fs.existsSync(out('lib/extra.js.map'))).toBe(true);
    fs.rmSync(src('lib/extra.ts'));
    expect(buildState(folders())).toMatchObject({ fresh: false, changed: [], removed: ['lib/extra.ts'] });
    await node(repo, ['bin/sarwatch.js']);
    expect(fs.existsSync(out('lib/extra.js'))).toBe(false);
    expect(fs.existsSync(out('lib/extra.js.map'))).toBe(false);
    expect(buildState(folders()).fresh).toBe(true);
  });

  it('SARWATCH_PRECOMPILED=0 runs the sources through tsx, the command and its thread', async () => {
    const { out: r, stderr } = await node(repo, ['bin/sarwatch.js'], { SARWATCH_PRECOMPILED: '0' });
    expect(stderr).toBe('');
    expect(r.main).toBe(`file://${src('cli/main.ts')}`);
    expect(r.thread.url).toBe(`file://${src('lib/task.ts')}`);
  });

  it('when build/ cannot be brought up to date (no esbuild installed), the command says so and runs the sources through tsx', async () => {
    // node_modules without esbuild (tsx keeps its own through the real folder it links to).
    fs.rmSync(path.join(repo, 'node_modules'));
    fs.mkdirSync(path.join(repo, 'node_modules'));
    for (const name of fs.readdirSync(path.join(REPO_ROOT, 'node_modules'))) {
      if (name !== 'esbuild' && name !== '.bin') fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', name), path.join(repo, 'node_modules', name));
    }
    edit(src('lib/value.ts'), 'export const value: number = 3;\n');
    const { out: r, stderr } = await node(repo, ['bin/sarwatch.js']);
    expect(stderr).toMatch(/^sarwatch: running the TypeScript sources through tsx: build\/ is older than src\/ and could not be rebuilt \(.*esbuild/);
    expect(r.main).toBe(`file://${src('cli/main.ts')}`);
    expect(r.value).toBe(3);
    expect(r.thread).toMatchObject({ url: `file://${src('lib/task.ts')}`, value: 3 });
    expect(buildState(folders()).fresh).toBe(false);
  });
});

describe('this repository runs precompiled', () => {
  it('build/ is up to date with src/ (the tests’ globalSetup), so the processes and threads the tests start run the code under test', () => {
    const state = buildState();
    expect(state.sources.size).toBeGreaterThan(300);
    expect(state).toMatchObject({ fresh: true, changed: [], removed: [] });
  });

  it('`sarwatch --help` runs build/cli/main.js and loads neither tsx nor a .ts file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-precompile-trace-'));
    try {
      const trace = path.join(dir, 'loaded.txt');
      const preload = path.join(dir, 'trace.mjs');
      // Every URL the ESM loader resolves, one per line.
      fs.writeFileSync(
        preload,
        `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
          `import fs from 'node:fs'; export async function resolve(s, c, next) { const r = await next(s, c); fs.appendFileSync(${JSON.stringify(trace)}, r.url + '\\n'); return r; }`,
        )}));\n`,
      );
      const { stdout } = await run(process.execPath, ['--import', preload, SARWATCH_BIN, '--help'], { cwd: REPO_ROOT, env: { ...process.env, SARWATCH_DATA_DIR: dir } });
      expect(stdout).toMatch(/^sarwatch \d+\.\d+\.\d+ — /);
      const loaded = fs.readFileSync(trace, 'utf8').trim().split('\n');
      expect(loaded).toContain(`file://${path.join(REPO_ROOT, 'build/cli/main.js')}`);
      expect(loaded.filter((u) => u.includes('/node_modules/tsx/') || u.endsWith('.ts'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a pool thread started from the sources runs build/ and its task’s error names the .ts source line (source maps); SARWATCH_PRECOMPILED=0 runs src/, named the same', async () => {
    const line = fs.readFileSync(path.join(REPO_ROOT, 'src/analysis/engine/selfTest.ts'), 'utf8').split('\n').findIndex((l) => l.includes('throw new TypeError(input.message)')) + 1;
    expect(line).toBeGreaterThan(0);
    const builtLine = fs.readFileSync(path.join(REPO_ROOT, 'build/analysis/engine/selfTest.js'), 'utf8').split('\n').findIndex((l) => l.includes('throw new TypeError(input.message)')) + 1;
    expect(builtLine).not.toBe(line);
    const stackOf = async () => {
      const pool = new ThreadPool(() => ({ minThreads: 1, maxThreads: 1, idleTimeout: 100 }));
      try {
        expect((await pool.run({ task: threadTasks.sumOnWorker, input: { data: new Float32Array([1, 2, 3]) } })).sum).toBe(6);
        const e = (await pool.run({ task: threadTasks.failOnWorker, input: { kind: 'plain', message: 'where' } }).catch((x: unknown) => x)) as Error;
        expect(e.message).toBe('where');
        return e.stack ?? '';
      } finally {
        await pool.close();
      }
    };
    for (const precompiled of [true, false]) {
      const prior = process.env.SARWATCH_PRECOMPILED;
      if (!precompiled) process.env.SARWATCH_PRECOMPILED = '0';
      try {
        const stack = await stackOf();
        expect(stack).toContain(`${path.join(REPO_ROOT, 'src/analysis/engine/selfTest.ts')}:${line}:`);
        expect(stack).not.toContain('/build/');
      } finally {
        if (prior === undefined) delete process.env.SARWATCH_PRECOMPILED;
        else process.env.SARWATCH_PRECOMPILED = prior;
      }
    }
  });

  it('a failing `sarwatch` command’s stack names the src/ .ts files and lines, not build/ (source maps)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-precompile-stack-'));
    try {
      const archive = fs.readFileSync(path.join(REPO_ROOT, 'src/catalog/archive.ts'), 'utf8').split('\n');
      const line = archive.findIndex((l) => l.includes('is not a folder`);')) + 1;
      expect(line).toBeGreaterThan(0);
      const missing = path.join(dir, 'no-such-folder');
      const failed = await run(process.execPath, [SARWATCH_BIN, 'catalog', 'index', missing], { cwd: REPO_ROOT, env: { ...process.env, SARWATCH_DATA_DIR: dir } }).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code).toBe(1);
      expect(failed!.stderr).toMatch(new RegExp(`^sarwatch: Error: ${missing} is not a folder\n`));
      expect(failed!.stderr).toContain(`${path.join(REPO_ROOT, 'src/catalog/archive.ts')}:${line}:`);
      expect(failed!.stderr).toMatch(new RegExp(`${path.join(REPO_ROOT, 'src/cli/main.ts')}:\\d+:\\d+`));
      expect(failed!.stderr).not.toContain('/build/');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

});
