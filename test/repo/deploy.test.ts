/**
 * Issue 13, docs/deploy.md: the deployment files are checked statically (no container
 * runtime or systemd on the reference machine): every environment variable they or the
 * deployment guide set is one the code reads, every role they start is a `sarwatch` command,
 * every path the Dockerfile copies exists, and the folders the compose file mounts exist in
 * the image for its unprivileged user.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

const read = (p: string) => fs.readFileSync(path.join(REPO_ROOT, p), 'utf8');
const DOCKERFILE = read('deploy/Dockerfile');
const COMPOSE = read('deploy/compose.yaml');
const ENV_FILE = read('deploy/sarwatch.env');
const UNITS = fs.readdirSync(path.join(REPO_ROOT, 'deploy/systemd')).map((f) => ({ name: f, text: read(`deploy/systemd/${f}`) }));
const DEPLOY_MD = read('docs/deploy.md');

/**
 * Every environment variable the code reads: src/config.ts, plus the few read elsewhere in src/,
 * and bench/'s own (docs/deploy.md names the distributed bench's settings beside its figures).
 */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  const config = read('src/config.ts');
  for (const m of config.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  for (const m of config.matchAll(/\((?:env), '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
  // perEndpoint(env, PREFIX, …): PREFIX_<ENDPOINT> for every endpoint.
  for (const m of config.matchAll(/perEndpoint\(env, '([A-Z0-9_]+)'/g)) names.add(`${m[1]}_*`);
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    }
  };
  walk(path.join(REPO_ROOT, 'src'));
  walk(path.join(REPO_ROOT, 'bench'));
  return names;
}

/** The AWS SDK's own variables (credentials and region), read by its default provider chain. */
const AWS_SDK = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']);

function known(name: string, read: Set<string>): boolean {
  if (read.has(name) || AWS_SDK.has(name)) return true;
  return [...read].some((r) => r.endsWith('_*') && name.startsWith(r.slice(0, -1)));
}

/** The roles `sarwatch` accepts as its first word: the cases of src/cli/main.ts's command switch. */
function commands(): Set<string> {
  return new Set([...read('src/cli/main.ts').matchAll(/case '([a-z]+)(?: [a-z]+)?':/g)].map((m) => m[1]!));
}

describe('issue 13: deploy/ agrees with the code', () => {
  const vars = variablesRead();

  it('every variable set by sarwatch.env, the systemd units, the compose file and docs/deploy.md is read by the code', () => {
    const set: Array<[string, string]> = [];
    for (const line of ENV_FILE.split('\n')) {
      const m = /^#?\s*([A-Z][A-Z0-9_]+)=/.exec(line);
      if (m) set.push(['deploy/sarwatch.env', m[1]!]);
    }
    for (const u of UNITS) for (const m of u.text.matchAll(/^Environment=([A-Z][A-Z0-9_]+)=/gm)) set.push([u.name, m[1]!]);
    for (const m of COMPOSE.matchAll(/environment: \{([^}]*)\}/g)) {
      for (const k of m[1]!.matchAll(/([A-Z][A-Z0-9_]+):/g)) set.push(['compose.yaml', k[1]!]);
    }
    for (const m of DEPLOY_MD.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)) set.push(['docs/deploy.md', m[1]!]);
    for (const m of DEPLOY_MD.matchAll(/`((?:SARWATCH|S3|STORAGE|DATABASE|REDIS|CATALOG)_?[A-Z0-9_]*)(?:=[^`]*)?`/g)) set.push(['docs/deploy.md', m[1]!]);
    // The compose file's own services (postgres, minio) take their images' variables.
    const ours = set.filter(([, name]) => !/^(POSTGRES|MINIO)_/.test(name));
    expect(ours.length).toBeGreaterThan(15);
    expect(ours.filter(([, name]) => !known(name, vars))).toEqual([]);
  });

  it('every role started is a sarwatch command: Dockerfile CMD, compose commands, systemd ExecStart', () => {
    const roles = commands();
    expect([...roles]).toEqual(expect.arrayContaining(['serve', 'api', 'worker', 'migrate', 'demo']));
    const started: string[] = [];
    started.push(JSON.parse(/^CMD (\[.*\])$/m.exec(DOCKERFILE)![1]!)[0]);
    // The entrypoint runs the same bin/sarwatch.js as the units.
    expect(JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(DOCKERFILE)![1]!)).toEqual(['node', 'bin/sarwatch.js']);
    for (const m of COMPOSE.matchAll(/^ {4}command: \[([a-z]+)\]$/gm)) started.push(m[1]!);
    for (const u of UNITS) {
      const exec = /^ExecStart=\/usr\/bin\/node bin\/sarwatch\.js ([a-z]+)$/m.exec(u.text);
      expect(exec, u.name).not.toBeNull();
      started.push(exec![1]!);
    }
    expect(new Set(started)).toEqual(new Set(['serve', 'migrate', 'api', 'worker']));
    expect(started.filter((r) => !roles.has(r))).toEqual([]);
    // The docs name the same units.
    for (const u of UNITS) expect(DEPLOY_MD).toContain(u.name);
  });

  it('the Dockerfile copies paths that exist; the compose file builds it and reads its env file', () => {
    // From the build context (a stage's output, COPY --from, is checked below).
    const copied = [...DOCKERFILE.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'bin', 'src']));
    for (const p of copied) expect(fs.existsSync(path.join(REPO_ROOT, p)), p).toBe(true);
    // Everything the sources load at run time from outside src/ is copied: the samples and package.json.
    expect(copied).toEqual(expect.arrayContaining(['samples']));
    // The dashboard is built in a stage with the dev dependencies; the image takes its output
    // where the API serves it from (config.ts DEFAULT_WEB_DIR), and runs with none of them.
    expect(DOCKERFILE).toMatch(/^FROM \S+ AS web$/m);
    expect(DOCKERFILE).toMatch(/^RUN node bin\/build-web\.js$/m);
    expect(DOCKERFILE).toMatch(/^COPY --from=web \/opt\/sarwatch\/dist\/web \.\/dist\/web$/m);
    expect(DOCKERFILE).toMatch(/^RUN npm install --omit=dev /m);
    const build = /build: \{ context: ([^,]+), dockerfile: ([^ }]+) \}/.exec(COMPOSE)!;
    expect(path.resolve(REPO_ROOT, 'deploy', build[1]!)).toBe(REPO_ROOT);
    expect(fs.existsSync(path.join(REPO_ROOT, build[2]!))).toBe(true);
    expect(/env_file: (\S+)/.exec(COMPOSE)![1]).toBe('sarwatch.env');
    // The image runs the sources precompiled (bin/build-src.js, after src/ is copied: its user cannot
    // write the build later); esbuild, and tsx that bin/sarwatch.js falls back to, are installed by
    // `npm install --omit=dev`.
    expect(DOCKERFILE.indexOf('\nRUN node bin/build-src.js\n')).toBeGreaterThan(DOCKERFILE.indexOf('\nCOPY src ./src\n'));
    expect(DOCKERFILE.indexOf('\nCOPY src ./src\n')).toBeGreaterThan(0);
    expect(Object.keys(JSON.parse(read('package.json')).dependencies)).toEqual(expect.arrayContaining(['esbuild', 'tsx']));
  });

  it('the folders the compose file mounts for sarwatch exist in the image, owned by its user', () => {
    const user = /^USER (\S+)$/m.exec(DOCKERFILE)![1]!;
    const mkdir = /^RUN mkdir -p ([^&]+) && chown (\S+):\S+ (.+)$/m.exec(DOCKERFILE)!;
    expect(mkdir[2]).toBe(user);
    const made = mkdir[1]!.trim().split(/\s+/);
    const owned = mkdir[3]!.trim().split(/\s+/);
    const mounts = [...COMPOSE.matchAll(/volumes: \[archive:(\S+)\]/g)].map((m) => m[1]!);
    expect(mounts.length).toBeGreaterThan(0);
    for (const dir of mounts) {
      expect(made).toContain(dir);
      expect(owned).toContain(dir);
    }
    // The workers' archive volume is where the shared environment points the archive.
    expect(ENV_FILE).toMatch(new RegExp(`^SARWATCH_ARCHIVE_DIR=${mounts[0]!.replace(/[/.]/g, '\\$&')}$`, 'm'));
    // And the data directory the image sets.
    const dataDir = /SARWATCH_DATA_DIR=(\S+)/.exec(DOCKERFILE)![1]!;
    expect(made).toContain(dataDir);
  });

  it('the systemd units let the service write what it writes: its data (and archive) folder and a private /tmp', () => {
    for (const u of UNITS.filter((x) => /ProtectSystem=strict/.test(x.text))) {
      expect(u.text, u.name).toMatch(/^PrivateTmp=yes$/m);
      expect(u.text, u.name).toMatch(/^ReadWritePaths=.*\/var\/lib\/sarwatch\b/m);
    }
  });
  it('every variable the service reads (src/config.ts, and process.env anywhere in src/) is in the README configuration table (as its header promises)', () => {
    const readme = read('README.md');
    const config = read('src/config.ts');
    const names = new Set([...config.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => (m[1] ?? m[2])!));
    expect(names.size).toBeGreaterThan(40);
    // Read outside config.ts (SARWATCH_ANALYSIS_THREADS in the pool got past a config.ts-only check);
    // the AWS SDK's own and the development-only ones (documented where they are used) aside.
    const developmentOnly = new Set(['SARWATCH_DEV_DATA', 'SARWATCH_QUICKLOOK_POOLED_LINES']);
    for (const n of variablesRead()) if (!n.endsWith('_*') && !AWS_SDK.has(n) && !developmentOnly.has(n) && !n.startsWith('SARWATCH_BENCH_')) names.add(n);
    expect(names).toContain('SARWATCH_ANALYSIS_THREADS');
    const rows = readme.split('\n').filter((l) => l.startsWith('| `'));
    expect([...names].filter((n) => !rows.some((r) => r.includes(`\`${n}\``) || r.includes(`\`${n}_`)))).toEqual([]);
  });
});
