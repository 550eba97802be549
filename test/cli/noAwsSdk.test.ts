/**
 * Issue 19 §4: the AWS SDK is loaded only where S3 is configured. The embedded service and
 * the `sarwatch` commands never import it (so never print its Node-version warning); the
 * same service with STORAGE_URL=s3://… does, which shows the trace below can see it.
 * Each process is preloaded with test/helpers/traceAwsSdk.mjs, which lists every @aws-sdk
 * module the ESM loader resolves and every one in the CommonJS require cache at exit.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SARWATCH_BIN, runSarwatchWithEnv } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/service.ts';
import { startS3rver, type TestS3 } from '../helpers/s3.ts';

const TRACE = path.join(REPO_ROOT, 'test/helpers/traceAwsSdk.mjs');
const AWS_WARNING = /AWS SDK|NodeVersionSupportWarning/;

let dataDir: string;
let s3: TestS3;

beforeAll(async () => {
  dataDir = tempDataDir();
  s3 = await startS3rver();
});

afterAll(async () => {
  await s3?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Environment of a traced process writing into `file`; SQLite, no demo archive, no S3 unless `extra` says so. */
function tracedEnv(file: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const k of ['STORAGE_URL', 'S3_ENDPOINT', 'DATABASE_URL', 'REDIS_URL', 'CATALOG_PROVIDER', 'SARWATCH_TEST_STORE']) delete env[k];
  return {
    ...env,
    NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import ${TRACE}`.trim(),
    SARWATCH_TRACE_AWS_SDK: file,
    SARWATCH_DEMO_ARCHIVE: '0',
    ...extra,
  };
}

/** `sarwatch serve` until it answers /healthz, then SIGTERM; its output and the @aws-sdk modules it loaded. */
async function serveTraced(name: string, extra: Record<string, string> = {}): Promise<{ output: string; loaded: string[]; health: number }> {
  const file = path.join(dataDir, `${name}.trace`);
  const dir = path.join(dataDir, name);
  const child = spawn(process.execPath, [SARWATCH_BIN, 'serve'], {
    cwd: REPO_ROOT,
    env: { ...tracedEnv(file, extra), SARWATCH_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 100_000;
    while (!/running at (http:\/\/\S+)/.test(output)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`sarwatch serve did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = /running at (http:\/\/\S+)/.exec(output)![1];
    const health = (await fetch(`${url}/healthz`)).status;
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    return { output, health, loaded: fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

// Concurrent: each test is a child process mostly waiting for its start.
describe.concurrent('the AWS SDK only where S3 is configured', () => {
  it('the embedded service (sarwatch serve, SQLite, the data folder as object store) never loads it and prints no warning of it', async () => {
    const run = await serveTraced('embedded');
    expect(run.health).toBe(200);
    expect(run.loaded).toEqual([]);
    expect(run.output).not.toMatch(AWS_WARNING);
  }, 120_000);

  it('a sarwatch command (accounts create, which imports what every command does) never loads it', async () => {
    const file = path.join(dataDir, 'cli.trace');
    const run = await runSarwatchWithEnv(tracedEnv(file), path.join(dataDir, 'cli'), 'accounts', 'create', '--name', 'trace', '--credits', '5', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).api_key).toMatch(/^sw_/);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    expect(run.stderr).not.toMatch(AWS_WARNING);
  }, 120_000);

  it('with STORAGE_URL=s3://… the service does load it (the trace sees the SDK when it is there)', async () => {
    const run = await serveTraced('s3', s3.env);
    expect(run.health).toBe(200);
    expect(run.loaded.some((l) => l.includes('/@aws-sdk/client-s3/'))).toBe(true);
  }, 120_000);
});
