/**
 * Issue 13, Roles: `sarwatch migrate`, then `sarwatch api` and `sarwatch worker` as separate
 * processes on PostgreSQL and BullMQ. A job submitted to the API process (which runs no
 * workers) is run by the worker process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { GRD_SCENE, tempDataDir } from '../helpers/service.ts';
import { runSarwatch } from '../helpers/cli.ts';
import { RoleProcesses, waitForOutput } from '../helpers/roleProcesses.ts';
import { REDIS_URL, createTestDatabase, ensureRedis, uniqueQueueName, type TestDatabase } from '../helpers/services.ts';
import { northSeaFixtureScenes, writeStacArchive } from '../helpers/stacFixtures.ts';

let database: TestDatabase;
let dataDir: string;
let env: Record<string, string>;
const procs = new RoleProcesses(() => env, { logLevel: () => 'warn' });
const start = (role: 'api' | 'worker') => procs.start(role);

beforeAll(async () => {
  await ensureRedis();
  database = await createTestDatabase();
  dataDir = tempDataDir();
  writeStacArchive(path.join(dataDir, 'archive', 'fixtures'), northSeaFixtureScenes());
  env = {
    SARWATCH_DATA_DIR: dataDir,
    SARWATCH_SAMPLES_DIR: '',
    DATABASE_URL: database.url,
    REDIS_URL,
    SARWATCH_QUEUE_NAME: uniqueQueueName(),
    PORT: '0',
    // The worker's own /metrics listener (the api role ignores it).
    SARWATCH_METRICS_PORT: '0',
  };
});

afterAll(async () => {
  await procs.stopAll('SIGTERM');
  const q = new Queue(env.SARWATCH_QUEUE_NAME!, { connection: { url: REDIS_URL } });
  await q.obliterate({ force: true });
  await q.close();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('sarwatch migrate / api / worker', () => {
  it('api and worker refuse a database that `sarwatch migrate` has not brought up to date', async () => {
    const worker = await runSarwatchWith('worker');
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain('run `sarwatch migrate` first');
    const migrate = await runSarwatchWith('migrate');
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain('up to date');
  });

  it('a job submitted to the api process is run by the worker process, whose /metrics (SARWATCH_METRICS_PORT) shows it; SIGTERM stops both cleanly', async () => {
    const account = await runSarwatchWith('accounts', 'create', '--name', 'roles', '--credits', '100000', '--json');
    expect(account.code).toBe(0);
    const { api_key } = JSON.parse(account.stdout) as { api_key: string };
    const api = start('api');
    const base = (await waitForOutput(api, /API listening at (http:\/\/\S+)/))[1]!;
    const submit = await fetch(`${base}/api/v1/analyze/ship`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api_key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ satellite_id: 'sentinel-1', scene_id: GRD_SCENE }),
    });
    expect(submit.status).toBe(200);
    const { job_id } = (await submit.json()) as { job_id: string };
    const get = async () => (await (await fetch(`${base}/api/v1/jobs/${job_id}`, { headers: { Authorization: `Bearer ${api_key}` } })).json()) as { status: string };
    // No worker yet: the API process runs none.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await get()).status).toBe('pending');

    const worker = start('worker');
    const metricsUrl = (await waitForOutput(worker, /worker running .*metrics at (http:\/\/\S+)/))[1]!;
    const end = Date.now() + 90_000;
    let status = 'pending';
    while (status === 'pending' || status === 'processing') {
      if (Date.now() > end) throw new Error(`job still ${status}\n${worker.output()}`);
      await new Promise((r) => setTimeout(r, 250));
      status = (await get()).status;
    }
    expect(['completed', 'failed']).toContain(status);
    // Issue 13: the worker process, which has no API, serves the duration of the job it ran.
    const metrics = await (await fetch(metricsUrl)).text();
    expect(metrics).toContain(`sarwatch_job_duration_seconds_count{endpoint_id="ship",outcome="${status}"} 1`);

    for (const p of [api, worker]) p.child.kill('SIGTERM');
    const codes = await Promise.all([api, worker].map((p) => new Promise<number | null>((r) => p.child.once('exit', (code) => r(code)))));
    expect(codes).toEqual([0, 0]);
  });
});

function runSarwatchWith(...args: string[]) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return runSarwatch(dataDir, ...args);
  } finally {
    process.env = saved;
  }
}
