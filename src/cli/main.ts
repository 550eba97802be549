/**
 * `sarwatch <command>`: serve, accounts, keys, credits. The server and the CLI share the
 * data directory (SARWATCH_DATA_DIR), so an account created here is usable at once.
 * Importing this runs nothing: bin/sarwatch.js calls runCli with the process's arguments, and
 * the tests call it in their own process with their environment and capture what it writes.
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { loadConfig, type Config } from '../config.ts';
import type { IndexArchiveResult } from '../catalog/index.ts';
import type { Db } from '../store/index.ts';
import { ApiError } from '../contract/errors.ts';
import { SCOPES } from '../contract/enums.ts';
import { VERSION } from '../version.ts';

// Each command loads only what it runs (a test suite starts this command about 80 times, and
// the service's modules cost seconds of CPU to load): the service for serve/api/worker, the
// detectors for analyze, the store and accounts for the account commands.
const runtime = () => import('../runtime.ts');

/** Seed of the demo archive: the same products on every machine. */
const DEMO_SEED = 20240613;
/** The demo port (ships, an oil slick) of 2024-06-13 and 06-25, used in the printed example. */
const DEMO_PORT_POLYGON = 'POLYGON ((4.2 52.38, 4.5 52.38, 4.5 52.58, 4.2 52.58, 4.2 52.38))';

const USAGE = `sarwatch ${VERSION} — Sentinel-1 analysis service

Usage:
  sarwatch serve                                   start API + workers in one process (embedded mode)
  sarwatch api                                     start the HTTP API only (scaled out: many, behind a balancer)
  sarwatch worker                                  start workers only: run jobs, index the archive, recover
                                                   interrupted jobs, sweep expired results
  sarwatch migrate                                 bring the database schema up to date (before api/worker)
  sarwatch demo                                    write the synthetic demo archive into SARWATCH_ARCHIVE_DIR
  sarwatch accounts create --name NAME --credits N [--scopes a,b] [--endpoints e1,e2] [--json]
  sarwatch keys create --account ID [--scopes a,b] [--endpoints e1,e2] [--label TEXT] [--json]
  sarwatch keys revoke KEY_ID_OR_KEY
  sarwatch credits grant --account ID --credits N [--note TEXT] [--json]
  sarwatch credits show --account ID [--json]
  sarwatch analyze ship|oilslick INPUT|STAC_ITEM_URL [--polygon WKT] [--pol VV,VH] [--units linear|db] [--out FILE]
                                                   run a detector on a SAFE GRD product (folder or zip),
                                                   a GRD STAC item URL (docs/catalogs.md) or a σ0 GeoTIFF
                                                   (bands named VV/VH, or --pol in band order;
                                                   georeferenced by a CRS or by GCPs);
                                                   oilslick: --units grey8[:MIN,MAX] reads an 8-bit
                                                   scaled image as grey 0…255 linear in dB over
                                                   −35…0 dB (or MIN…MAX; grey 0 = no data)
  sarwatch analyze newbuilding|disappearbuilding PRE POST --polygon WKT [--dates D1,D2] [--out FILE]
  sarwatch analyze timeseries INPUT... --polygon WKT [--dates D1,...] [--cell-size M] [--out FILE]
                                                   building change / backscatter series on RTC GeoTIFFs
                                                   (a folder per date holding *_VV.tif/*_VH.tif, or the
                                                   files; dates from OPERA names or --dates, one per
                                                   INPUT) or on SAFE GRD products of one track, geocoded
                                                   onto one UTM grid over the polygon
  sarwatch analyze idlefarm FIELDS.geojson SCENES... [--dates D1,...] [--out FILE]
                                                   idle farmland: the fields (GeoJSON FeatureCollection)
                                                   over a season of RTC GeoTIFFs or SAFE GRD products;
                                                   writes result.zip (default ./result.zip)
  sarwatch catalog index [DIR]                     add DIR to the scene archive (a link) and index it
  sarwatch catalog list [--polygon WKT] [--date-start D] [--date-end D] [--product-type GRD,RTC]
                        [--orbit-direction ascending|descending] [--limit N] [--json]

Environment: SARWATCH_DATA_DIR (default ./data), HOST, PORT, DATABASE_URL, REDIS_URL, STORAGE_URL,
and the others in README.md and docs/deploy.md.
Scopes: ${SCOPES.join(', ')} (default: all).`;

class UsageError extends Error {}

/** What a command reads and where it writes: the process's environment and streams, or a test's. */
export interface CliContext {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROCESS: CliContext = {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

const list = (text: string | undefined) => (text ? text.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

function need(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function number(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${text}"`);
  return n;
}

const OPTIONS = {
  name: { type: 'string' },
  credits: { type: 'string' },
  scopes: { type: 'string' },
  endpoints: { type: 'string' },
  label: { type: 'string' },
  account: { type: 'string' },
  note: { type: 'string' },
  polygon: { type: 'string' },
  'date-start': { type: 'string' },
  'date-end': { type: 'string' },
  'product-type': { type: 'string' },
  'orbit-direction': { type: 'string' },
  limit: { type: 'string' },
  out: { type: 'string' },
  pol: { type: 'string' },
  units: { type: 'string' },
  dates: { type: 'string' },
  'cell-size': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const { openDb } = await runtime();
  const db = await openDb(config);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** The account commands: an AccountError (no such account, no active key…) is the user's mistake, exit 2. */
async function withAccounts<T>(config: Config, fn: (db: Db, accounts: typeof import('../jobs/accounts.ts')) => Promise<T>): Promise<T> {
  const accounts = await import('../jobs/accounts.ts');
  try {
    return await withDb(config, (db) => fn(db, accounts));
  } catch (e) {
    if (e instanceof accounts.AccountError) throw new UsageError(e.message);
    throw e;
  }
}

function print(cx: CliContext, json: boolean | undefined, value: object, text: string): void {
  cx.stdout(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/** Writes the demo products into the archive unless they are there already. */
async function writeDemoArchive(cx: CliContext, archiveDir: string): Promise<void> {
  const t0 = Date.now();
  const { generateDemoArchive } = await import('../synth/index.ts');
  const demo = await generateDemoArchive(path.join(archiveDir, 'demo'), { seed: DEMO_SEED });
  if (demo.generated) cx.stdout(`Generated ${demo.products.length} demo products in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

type Role = 'serve' | 'api' | 'worker';

/** Runs until SIGTERM/SIGINT, which drain: stop taking jobs, finish or leave them to lease recovery. */
async function runRole(cx: CliContext, config: Config, role: Role): Promise<void> {
  const { startService } = await runtime();
  const { closeOnSignals } = await import('./shutdown.ts');
  const service = await startService(config, {
    logger: { level: cx.env.LOG_LEVEL || 'info' },
    roles: { api: role !== 'worker', worker: role !== 'api' },
    // The scaled-out roles never change the schema: `sarwatch migrate` does, once, first.
    migrate: role === 'serve',
    // First start: write the synthetic demo products (ships and a slick in a port, a growing
    // city, farmland, an SLC) into the archive; later starts find them and skip this.
    beforeIndex: config.demoArchive && role === 'serve' ? (archiveDir) => writeDemoArchive(cx, archiveDir) : undefined,
  });
  // Once, for every role: a second registration would close the service twice per signal.
  closeOnSignals(() => service.close(), { log: service.app.log, exit: (code) => process.exit(code) });
  if (role === 'worker') {
    cx.stdout(`sarwatch ${VERSION} worker running (concurrency ${config.workerConcurrency}, id ${service.runner.workerId})${service.metricsUrl ? `, metrics at ${service.metricsUrl}/metrics` : ''}\n`);
    return;
  }
  if (role === 'api') {
    cx.stdout(`sarwatch ${VERSION} API listening at ${config.publicUrl || service.url}\n`);
    return;
  }
  const { ensureDemoAccount } = await import('./demo.ts');
  const demo = await ensureDemoAccount(service.db, config.dataDir, config.demoCredits);
  const base = config.publicUrl || service.url;
  cx.stdout(
    [
      '',
      `sarwatch ${VERSION} is running at ${base}  (data: ${config.dataDir})`,
      `Dashboard:    ${base}/  (sign in with the demo key)`,
      `API docs:     ${base}/docs`,
      `Demo API key: ${demo.apiKey}`,
      '',
      'Try it:',
      `  curl -s -H "Authorization: Bearer ${demo.apiKey}" -H "Content-Type: application/json" \\`,
      `    -d '{"satellite_id":"sentinel-1","polygon":"${DEMO_PORT_POLYGON}","date":"2024-06-13"}' \\`,
      `    ${base}/api/v1/analyze/ship/preview`,
      '',
    ].join('\n'),
  );
}

/**
 * Runs the command `argv` names: its exit code, or −1 for a role that keeps running (serve, api,
 * worker). Throws what it could not do: runCli turns that into the message and the exit code.
 */
export async function main(argv: string[], cx: CliContext = PROCESS): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    cx.stdout(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig(cx.env);
  switch (`${command}${sub ? ` ${sub}` : ''}`) {
    case 'serve':
    case 'api':
    case 'worker':
      await runRole(cx, config, command as Role);
      return -1; // keep running
    case 'migrate': {
      const { openDb } = await runtime();
      const db = await openDb(config, { migrate: true });
      await db.destroy();
      print(cx, values.json, { migrated: true }, 'database schema is up to date');
      return 0;
    }
    case 'demo':
      await writeDemoArchive(cx, config.archiveDir);
      print(cx, values.json, { archive: config.archiveDir }, `demo archive in ${path.join(config.archiveDir, 'demo')}`);
      return 0;
    case 'accounts create':
      return withAccounts(config, async (db, { createAccount, createApiKey }) => {
        const { accountId } = await createAccount(db, { name: need(values, 'name'), credits: number(need(values, 'credits'), 'credits') });
        const { apiKey, keyId } = await createApiKey(db, { accountId, scopes: list(values.scopes), endpoints: list(values.endpoints) });
        print(cx, values.json, { account_id: accountId, api_key: apiKey }, `account ${accountId}\nkey id ${keyId}\napi key ${apiKey}  (shown once; store it now)`);
        return 0;
      });
    case 'keys create':
      return withAccounts(config, async (db, { createApiKey }) => {
        const { apiKey, keyId } = await createApiKey(db, {
          accountId: need(values, 'account'),
          scopes: list(values.scopes),
          endpoints: list(values.endpoints),
          label: values.label,
        });
        print(cx, values.json, { key_id: keyId, api_key: apiKey }, `key id ${keyId}\napi key ${apiKey}  (shown once; store it now)`);
        return 0;
      });
    case 'keys revoke':
      return withAccounts(config, async (db, { revokeApiKey }) => {
        if (!arg) throw new UsageError('keys revoke needs a key id or key');
        const revoked = await revokeApiKey(db, arg);
        if (!revoked) throw new UsageError(`no active key ${arg}`);
        print(cx, values.json, { revoked: true }, 'key revoked');
        return 0;
      });
    case 'credits grant':
      return withAccounts(config, async (db, { grantCredits }) => {
        const balance = await grantCredits(db, need(values, 'account'), number(need(values, 'credits'), 'credits'), values.note);
        print(cx, values.json, { account_id: values.account, balance }, `balance ${balance}`);
        return 0;
      });
    case 'credits show':
      return withAccounts(config, async (db, { showCredits }) => {
        const shown = await showCredits(db, need(values, 'account'));
        const lines = [`account ${shown.account_id} (${shown.name})`, `balance ${shown.balance}`, ...shown.recent.map((r) => `  ${r.at} ${r.kind.padEnd(7)} ${String(r.amount).padStart(14)}  → ${r.balance_after}  ${r.job_id ?? ''} ${r.note ?? ''}`)];
        print(cx, values.json, shown, lines.join('\n'));
        return 0;
      });
    case 'analyze': {
      const { CLI_DETECTORS } = await import('./analyze.ts');
      throw new UsageError(`analyze needs a detector: ${CLI_DETECTORS.join(', ')} (see sarwatch --help)`);
    }
    case `analyze ${sub}`: {
      const { AnalyzeUsageError, runAnalyze } = await import('./analyze.ts');
      const inputs = positionals.slice(2);
      if (inputs.length === 0) throw new UsageError(`analyze ${sub ?? 'DETECTOR'} needs INPUT (see sarwatch --help)`);
      try {
        const done = await runAnalyze({
          detector: sub!,
          inputs,
          polygon: values.polygon,
          out: values.out,
          pol: values.pol,
          units: values.units,
          dates: values.dates,
          cellSize: values['cell-size'],
          maxRequestBytes: config.maxRequestBytes,
          // The process's own streams by default: a progress bar when stderr is a terminal.
          output: cx === PROCESS ? undefined : cx,
        });
        if (done.out) cx.stderr(`${done.features} features written to ${done.out}\n`);
      } catch (e) {
        if (e instanceof AnalyzeUsageError) throw new UsageError(e.message);
        throw e;
      }
      return 0;
    }
    case 'catalog index':
      return withDb(config, async (db) => {
        const [{ openCatalog }, { linkIntoArchive, linkSamples }] = await Promise.all([runtime(), import('../catalog/archive.ts')]);
        const { reindex } = openCatalog(config, db);
        if (!reindex) throw new UsageError('catalog index works on the local archive; CATALOG_URL points to a STAC API');
        if (arg) cx.stderr(`linked ${linkIntoArchive(config.archiveDir, arg)}\n`);
        else linkSamples(config.archiveDir, config.samplesDir);
        const result = (await reindex()) as IndexArchiveResult;
        print(
          cx,
          values.json,
          result,
          `${config.archiveDir}: ${result.added} added, ${result.updated} updated, ${result.removed} removed, ${result.skipped} unchanged, ${result.ignored} ignored` +
            result.errors.map((e) => `\n  error: ${e.path}: ${e.message}`).join(''),
        );
        return result.errors.length ? 1 : 0;
      });
    case 'catalog list':
      return withDb(config, async (db) => {
        const [{ openCatalog }, { searchScenes }] = await Promise.all([runtime(), import('../jobs/scenes.ts')]);
        const { catalog } = openCatalog(config, db);
        const query: Record<string, string> = {};
        for (const [flag, key] of [['polygon', 'polygon'], ['date-start', 'date_start'], ['date-end', 'date_end'], ['product-type', 'product_type'], ['orbit-direction', 'orbit_direction'], ['limit', 'limit']] as const) {
          const v = values[flag];
          if (typeof v === 'string') query[key] = v;
        }
        let listed;
        try {
          listed = await searchScenes(catalog, query);
        } catch (e) {
          if (e instanceof ApiError) throw new UsageError(e.message);
          throw e;
        }
        const lines = listed.scenes.map((s) => `${s.start_time.slice(0, 19)}Z  ${s.product_type.padEnd(4)} ${s.platform} rel ${String(s.relative_orbit).padStart(3)} ${s.orbit_direction.padEnd(10)} ${s.polarisations.join('+').padEnd(5)}  ${s.scene_id}`);
        print(cx, values.json, listed, lines.length ? lines.join('\n') : 'no scenes');
        return 0;
      });
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  }
}

/**
 * `sarwatch ARGV…`: the exit code (−1: a role that keeps running), having written what the
 * command prints and, for a command that failed, `sarwatch: ` and why on stderr — exit 2 for a
 * usage error (the user's mistake), 1 for anything else (with its stack).
 */
export async function runCli(argv: string[], cx: CliContext = PROCESS): Promise<number> {
  try {
    return await main(argv, cx);
  } catch (e) {
    if (e instanceof UsageError || String((e as { code?: string }).code).startsWith('ERR_PARSE_ARGS')) {
      cx.stderr(`sarwatch: ${(e as Error).message}\n`);
      return 2;
    }
    cx.stderr(`sarwatch: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 1;
  }
}
