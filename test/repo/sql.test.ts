/**
 * Issue 20 §1: where SQL runs. Only the files and folders listed below may build or run a
 * statement (Kysely's query builder, `sql` templates, transactions, schema changes, a driver
 * of their own); a new file that does fails here, and so does a listed file that no longer
 * runs any (the list stays honest). The jobs table is written only by its transitions, and
 * only the store knows which backend it runs on (adapter classes, driver error codes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

/** Folders (ending in /) and files allowed to run SQL, each with why. */
const ALLOWED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^src\/store\//, 'the store itself: connections, the dialects, migrations, leases, the scene index'],
  [/^src\/[a-z]+\/transitions\//, 'one guarded change per file: jobs, uploads, monitors, webhook deliveries'],
  [/^src\/jobs\/credits(\.ts|\/)/, 'the credit ledger: balance reads and the guarded moves the transitions call'],
  [/^src\/jobs\/(accounts|outbox|service)\.ts$/, 'accounts and API keys (CLI), the event outbox the transitions append to, job reads for the API'],
  [/^src\/queue\/(storeBacked|reconcile)\.ts$/, 'the store-backed queue polls pending jobs; the BullMQ reconciler finds pending jobs the broker lacks'],
  [/^src\/worker\/(jobWatch|pruneJobEvents)\.ts$/, 'a worker watching its jobs for cancel; pruning old progress events'],
  [/^src\/events\/(dispatcher|jobEvents|sender|webhooks)\.ts$/, 'webhooks: outbox dispatch, event streams, delivery reads, webhook CRUD'],
  [/^src\/events\/deliveryQueue\/(bullmq|storeBacked)\.ts$/, 'due webhook deliveries, per queue backend'],
  [/^src\/monitors\/(runner|service|spending)\.ts$/, 'monitors: CRUD, runs, the monthly spend'],
  [/^src\/uploads\/(accountUploads|service|tifService|aisService)\.ts$/, 'upload reads of an account; uploads stuck in processing'],
  [/^src\/metrics\.ts$/, 'gauges counted in the store'],
];

/** What running SQL looks like in this code base (comments removed first). */
const RUNS_SQL: ReadonlyArray<readonly [RegExp, string]> = [
  [/\.(selectFrom|selectNoFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(/, 'a Kysely query'],
  [/\.transaction\(\)/, 'a transaction'],
  [/\.schema\s*\.\s*(create|alter|drop)/, 'a schema change'],
  [/\bsql\s*(<[^`]*>)?\s*`/, 'an sql`` template'],
  [/\bsql\.(raw|lit|join|ref|table|id|val)\(/, 'an sql fragment'],
  [/\b(executeQuery|CompiledQuery)\b/, 'a compiled query'],
  [/^import(?!\s+type)[^;]*from\s+'(pg|better-sqlite3)'/m, 'a database driver'],
];

/** Comments hold words like `sql` and SELECT; strings such as 'postgres://…' keep their slashes. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[\s;{}(),])\/\/.*$/gm, '$1');
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

const FILES = sourceFiles('src').map((file) => ({ file, code: withoutComments(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')) }));

function sqlIn(code: string): string | null {
  for (const [pattern, what] of RUNS_SQL) if (pattern.test(code)) return what;
  return null;
}

describe('where SQL runs (issue 20 §1)', () => {
  it('the detector sees each way of running SQL, and not look-alikes', () => {
    for (const code of ["await db.selectFrom('jobs').selectAll().execute()", 'tx.updateTable(t)', 'await db.transaction().execute(fn)', 'sql<number>`count(*)`', 'await sql`select 1`.execute(db)', "db.schema.createTable('x')", "import pg from 'pg';", "import SqliteDatabase from 'better-sqlite3';", 'CompiledQuery.raw(text)']) {
      expect(sqlIn(code), code).not.toBeNull();
    }
    for (const code of ['await this.execute(job, progress, signal)', "import type pg from 'pg';", "const url = 'postgres://host/db'; // select 1", '/** uses sql`select` */ const x = 1;', 'regex.exec(text)']) {
      expect(sqlIn(withoutComments(code)), code).toBeNull();
    }
  });

  it('only the listed files run SQL', () => {
    const unlisted = FILES.filter((f) => sqlIn(f.code) && !ALLOWED.some(([p]) => p.test(f.file))).map((f) => `${f.file} (${sqlIn(f.code)})`);
    expect(unlisted, 'move the statement into a transition or a store module, or list the file here with why').toEqual([]);
  });

  it('every entry of the list still runs SQL', () => {
    const stale = ALLOWED.filter(([p]) => !FILES.some((f) => p.test(f.file) && sqlIn(f.code))).map(([p]) => String(p));
    expect(stale).toEqual([]);
    // An entry naming files by alternation: each file named must still run SQL.
    const named = ALLOWED.flatMap(([p]) => {
      const m = /^\^src\\\/((?:[a-z]+\\\/)*)\(([a-zA-Z|]+)\)\\\.ts\$$/.exec(p.source);
      return m ? m[2]!.split('|').map((name) => `src/${m[1]!.replace(/\\\//g, '/')}${name}.ts`) : [];
    });
    expect(named.length).toBeGreaterThan(10);
    const quiet = named.filter((file) => !FILES.some((f) => f.file === file && sqlIn(f.code)));
    expect(quiet).toEqual([]);
  });

  it('the jobs table is written only by its transitions', () => {
    const writers = FILES.filter((f) => /\.(insertInto|updateTable|deleteFrom)\(\s*'jobs'/.test(f.code)).map((f) => f.file);
    expect(writers.length).toBeGreaterThan(5);
    expect(writers.filter((f) => !/^src\/jobs\/transitions\//.test(f))).toEqual([]);
  });

  it('only the store knows its backend: adapter classes and driver error codes stay under src/store/', () => {
    const knows = /\b(PostgresAdapter|SqliteAdapter)\b|['"]SQLITE_[A-Z_]+['"]|['"](23505|23503|40001|40P01|57P0[1-3]|0800[0-6]|53300)['"]/;
    const outside = FILES.filter((f) => knows.test(f.code) && !f.file.startsWith('src/store/')).map((f) => f.file);
    expect(outside).toEqual([]);
    expect(FILES.filter((f) => knows.test(f.code)).map((f) => f.file).sort()).toEqual(['src/store/dialect.ts', 'src/store/postgres.ts', 'src/store/sqlite.ts', 'src/store/sqliteBusy.ts']);
  });
});
