/**
 * `sarwatch api` and `sarwatch worker` processes of a scaled-out test, as an operator starts
 * them: each one's combined output, waiting for a line, and ending them all after the test;
 * and the deployment they run on (PostgreSQL, Redis, S3, the demo archive).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { Queue } from 'bullmq';
import { REPO_ROOT, SARWATCH_BIN, runSarwatchWithEnv, type CliRun } from './cli.ts';
import { tempDataDir } from './service.ts';
import { REDIS_URL, createTestDatabase, ensureRedis, uniqueQueueName, type TestDatabase } from './services.ts';
import { startS3rver, type TestS3 } from './s3.ts';
import { linkDemoArchive } from './demoArchive.ts';

export interface RoleProcess {
  role: 'api' | 'worker';
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
}

export interface RoleProcessOptions {
  /** Each process gets a data directory of its own (secrets only; the state is in PostgreSQL and S3). Default: the env's SARWATCH_DATA_DIR. */
  ownDataDir?: boolean;
  /** LOG_LEVEL per role (default info). */
  logLevel?: (role: 'api' | 'worker') => string;
}

export class RoleProcesses {
  /** Every process started, replacements included, in start order. */
  readonly started: RoleProcess[] = [];
  private readonly dirs: string[] = [];

  /** `env`: read at each start (a test's env is usually made in its beforeAll). */
  constructor(
    private readonly env: () => Record<string, string>,
    private readonly options: RoleProcessOptions = {},
  ) {}

  start(role: 'api' | 'worker'): RoleProcess {
    let out = '';
    const own: Record<string, string> = {};
    if (this.options.ownDataDir) {
      own.SARWATCH_DATA_DIR = tempDataDir();
      this.dirs.push(own.SARWATCH_DATA_DIR);
    }
    const child = spawn(process.execPath, [SARWATCH_BIN, role], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env(), ...own, LOG_LEVEL: this.options.logLevel?.(role) ?? 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (out += String(d)));
    const proc = { role, child, output: () => out };
    this.started.push(proc);
    return proc;
  }

  /** Signals every process still running, waits for all to exit, removes their own data directories. */
  async stopAll(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const running = this.started.map((p) => p.child).filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
    for (const c of running) c.kill(signal);
    await Promise.all(exited);
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the process's output matches `pattern`; fails when it exits first or the time runs out, showing the output. */
export async function waitForOutput(p: RoleProcess, pattern: RegExp, timeoutMs = 600_000): Promise<RegExpExecArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(p.output());
    if (m) return m;
    if (Date.now() > end || p.child.exitCode !== null) throw new Error(`no ${pattern} in:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A scaled-out deployment on one machine, as the e2e tests start it: a fresh PostgreSQL
 * database, an s3rver bucket, a BullMQ queue name, a shared data directory whose archive holds
 * the once-per-run demo archive (`sarwatch demo` must find it complete), the schema migrated.
 * `processes` starts `sarwatch api|worker` with its env; `close` ends them and drops it all.
 */
export interface ScaledOutDeployment {
  env: Record<string, string>;
  /** The CLI's data directory (the archive is below it). */
  shared: string;
  database: TestDatabase;
  s3: TestS3;
  processes: RoleProcesses;
  /** `sarwatch ARGS…` against the deployment. */
  cli(...args: string[]): Promise<CliRun>;
  /** Stops every process, obliterates the queues (the job queue and `<name><suffix>` for each suffix), drops the rest. */
  close(queueSuffixes?: string[]): Promise<void>;
}

export async function startScaledOutDeployment(bucket: string, extraEnv: Record<string, string>, options: RoleProcessOptions = {}): Promise<ScaledOutDeployment> {
  await ensureRedis();
  const database = await createTestDatabase();
  const s3 = await startS3rver(bucket, 'prod');
  const shared = tempDataDir();
  const env: Record<string, string> = {
    ...s3.env,
    DATABASE_URL: database.url,
    REDIS_URL,
    SARWATCH_QUEUE_NAME: uniqueQueueName(),
    SARWATCH_ARCHIVE_DIR: path.join(shared, 'archive'),
    SARWATCH_SAMPLES_DIR: '',
    SARWATCH_RECONCILE_INTERVAL_SECONDS: '1',
    SARWATCH_RATE_LIMIT_PER_MINUTE: '100000',
    PORT: '0',
    ...extraEnv,
  };
  const processes = new RoleProcesses(() => env, { ownDataDir: true, ...options });
  const cli = (...args: string[]) => runSarwatchWithEnv(env, shared, ...args);
  const close = async (queueSuffixes: string[] = []) => {
    await processes.stopAll();
    for (const name of [env.SARWATCH_QUEUE_NAME!, ...queueSuffixes.map((s) => `${env.SARWATCH_QUEUE_NAME}${s}`)]) {
      const q = new Queue(name, { connection: { url: REDIS_URL } });
      await q.obliterate({ force: true });
      await q.close();
    }
    await database.drop();
    await s3.close();
    fs.rmSync(shared, { recursive: true, force: true });
  };
  expect((await cli('migrate')).code).toBe(0);
  // The demo archive made once per run (test/globalSetup.ts), linked in where `sarwatch demo` writes it:
  // the command finds it complete and generates nothing (its first generation is test/cli/cli.test.ts's).
  await linkDemoArchive(env.SARWATCH_ARCHIVE_DIR!);
  const demo = await cli('demo');
  expect(demo.code).toBe(0);
  expect(demo.stdout).not.toMatch(/Generated \d+ demo products/);
  return { env, shared, database, s3, processes, cli, close };
}
