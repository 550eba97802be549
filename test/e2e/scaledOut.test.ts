/**
 * Issue 13, end to end on one machine: `sarwatch migrate`, 2 `sarwatch api` and 3 `sarwatch
 * worker` processes on real PostgreSQL, Redis (BullMQ) and an S3-compatible server
 * (s3rver), the demo archive shared by the workers. Jobs of mixed endpoints go through both
 * APIs; one worker is SIGKILLed mid-job and one drained by SIGTERM mid-job, each replaced by
 * a new one. Then: every job terminal,
 * every completed result (and its quicklook and overlay) downloadable through the S3 redirect, the ledger balanced, no job
 * charged, released or completed twice (one "job completed" log line per completed job across
 * all workers). SARWATCH_E2E_JOBS sets the number of jobs: .ci/run
 * runs the issue's 200 (18.6 min wall, 315 CPU s, on two cores at load 15–19, when the jobs
 * covered the whole port box), plain `npm test` 8: each of the four kinds of job twice. The
 * workers' CPU is nearly all job work (an idle api or worker process spends well under 1 % of
 * a core), so each job left to .ci/run saves that much; and the jobs cover the demo port's
 * anchorage (test/helpers/demoArchive.ts: a third of the port box `npm start` prints; a warm
 * ship job 1.9 instead of 5.2 CPU s). What is checked here is how the processes share, lose
 * and hand back jobs, not what the detectors find.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startScaledOutDeployment, waitForOutput, type ScaledOutDeployment } from '../helpers/roleProcesses.ts';
import type { TestDatabase } from '../helpers/services.ts';
import type { TestS3 } from '../helpers/s3.ts';
import { DEMO_ANCHORAGE } from '../helpers/demoArchive.ts';

const JOBS = Number(process.env.SARWATCH_E2E_JOBS || 8);
const BODIES: Array<{ family: string; endpoint: string; body: object }> = [
  { family: 'detect', endpoint: 'ship', body: { satellite_id: 'sentinel-1', polygon: DEMO_ANCHORAGE, date: '2024-06-13' } },
  { family: 'analyze', endpoint: 'oilslick', body: { satellite_id: 'sentinel-1', polygon: DEMO_ANCHORAGE, date: '2024-06-25' } },
  { family: 'analyze', endpoint: 'ship', body: { satellite_id: 'sentinel-1', polygon: DEMO_ANCHORAGE, date: '2024-06-25' } },
  // A scene that does not exist: fails at run time, uncharged.
  { family: 'analyze', endpoint: 'ship', body: { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_GRDH_1SDV_20200101T000000_20200101T000025_030000_036F00_ABCD' } },
];

let deployment: ScaledOutDeployment;
let env: Record<string, string>;
let database: TestDatabase;
let s3: TestS3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const start = (role: 'api' | 'worker') => deployment.processes.start(role);
const cli = (...args: string[]) => deployment.cli(...args);

beforeAll(async () => {
  deployment = await startScaledOutDeployment(
    'sarwatch-e2e',
    {
      // Long enough to outlast a detector's main-thread stalls on a loaded machine (a shorter
      // lease makes live workers lose their jobs), short enough to recover the killed one soon.
      SARWATCH_JOB_LEASE_SECONDS: '20',
      SARWATCH_MAX_CONCURRENT_JOBS: '1000',
    },
    // Workers log at info: their "job completed" lines are the evidence that no job completed twice.
    { logLevel: (role) => (role === 'worker' ? 'info' : 'warn') },
  );
  ({ env, database, s3 } = deployment);
}, 600_000);

afterAll(async () => {
  await deployment?.close();
});

describe('2 api + 3 worker processes on PostgreSQL, Redis and S3', () => {
  it('issue 13: one worker killed mid-job and one restarted: every job terminal, results downloadable, ledger balanced, nothing twice', async () => {
    const account = await cli('accounts', 'create', '--name', 'e2e', '--credits', '1000000', '--json');
    expect(account.code).toBe(0);
    const { api_key, account_id } = JSON.parse(account.stdout) as { api_key: string; account_id: string };
    const auth = { Authorization: `Bearer ${api_key}` };

    const workers = [start('worker'), start('worker'), start('worker')];
    const apis = [start('api'), start('api')];
    const bases = await Promise.all(apis.map(async (a) => (await waitForOutput(a, /API listening at (http:\/\/\S+)/))[1]!));
    const workerIds = await Promise.all(workers.map(async (w) => (await waitForOutput(w, /worker running \(.*id (\S+)\)/))[1]!));

    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const { family, endpoint, body } = BODIES[i % BODIES.length]!;
      const res = await fetch(`${bases[i % 2]}/api/v1/${family}/${endpoint}`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { job_id: string }).job_id);
    }

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    /** The job `workerId` is running now (waits until it runs one). */
    const jobOf = async (workerId: string): Promise<string> => {
      const end = Date.now() + 600_000;
      for (;;) {
        const row = (await db.query(`select id from jobs where status = 'processing' and lease_owner = $1`, [workerId])).rows[0];
        if (row) return row.id as string;
        if (Date.now() > end) throw new Error(`worker ${workerId} never ran a job`);
        await sleep(50);
      }
    };
    try {
      // SIGKILL: the worker dies mid-job; its lease expires and another worker runs the job
      // again, as one more attempt.
      const killedJob = await jobOf(workerIds[0]!);
      workers[0]!.child.kill('SIGKILL');
      start('worker');

      // SIGTERM: the worker drains (stops taking jobs, hands its running job back) and exits
      // 0; a fresh worker takes its place.
      const drainedJob = await jobOf(workerIds[1]!);
      const drained = new Promise<number | null>((r) => workers[1]!.child.once('exit', (code) => r(code)));
      workers[1]!.child.kill('SIGTERM');
      expect(await drained).toBe(0);
      start('worker');
      // Handed back at once, not left to lease expiry: no longer held by the drained worker.
      const after = (await db.query(`select status, lease_owner from jobs where id = $1`, [drainedJob])).rows[0];
      expect(after.lease_owner === workerIds[1] && after.status === 'processing').toBe(false);

      const deadline = Date.now() + 20 * 60_000;
      for (;;) {
        const active = Number((await db.query(`select count(*) n from jobs where status in ('pending','processing')`)).rows[0].n);
        if (active === 0) break;
        if (Date.now() > deadline) throw new Error(`${active} jobs still active`);
        await sleep(500);
      }

      const jobs = (await db.query(`select id, status, attempts, error_code, credits_reserved_micros, credits_used_micros from jobs where account_id = $1`, [account_id])).rows;
      expect(jobs).toHaveLength(JOBS);
      expect(jobs.every((j) => j.status === 'completed' || j.status === 'failed')).toBe(true);
      // The killed worker's job ran again as a further attempt; the drained one ran to an end too.
      expect(Number(jobs.find((j) => j.id === killedJob)!.attempts)).toBeGreaterThanOrEqual(2);
      expect(['completed', 'failed']).toContain(jobs.find((j) => j.id === drainedJob)!.status);

      const ledger = (await db.query(`select job_id, kind, amount_micros from credit_ledger where account_id = $1`, [account_id])).rows;
      const balance = Number((await db.query(`select balance_micros from accounts where id = $1`, [account_id])).rows[0].balance_micros);
      expect(ledger.reduce((s, r) => s + Number(r.amount_micros), 0)).toBe(balance);
      for (const j of jobs) {
        const kinds = ledger.filter((r) => r.job_id === j.id).map((r) => r.kind).sort();
        if (j.status === 'completed' && Number(j.credits_used_micros) > 0) expect(kinds).toEqual(['charge', 'release', 'reserve']);
        else expect(kinds).toEqual(['release', 'reserve']);
      }

      const completed = jobs.filter((j) => j.status === 'completed');
      expect(completed.length).toBeGreaterThan(0);
      // The workers' logs read below are whole once they are stopped and their output closed: a
      // worker logs "job completed" after its commit (which the count above may see first), and
      // the line reaches this process through a pipe.
      const live = deployment.processes.started.filter((p) => p.role === 'worker' && p.child.exitCode === null && p.child.signalCode === null);
      await Promise.all(
        live.map((p) => {
          const closed = new Promise((r) => p.child.once('close', r));
          p.child.kill('SIGTERM');
          return closed;
        }),
      );
      const quicklookLog = deployment.processes.started.filter((p) => p.role === 'worker').flatMap((w) =>
        w
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{') && line.includes('quicklook'))
          .map((line) => JSON.parse(line) as { jobId: string; msg: string; err?: string }),
      );
      // No quicklook failed for a reason of its own; those skipped because their worker stopped are known by id.
      expect(quicklookLog.filter((l) => l.msg.includes('quicklook failed') || l.msg.includes('quicklook write failed'))).toEqual([]);
      const stoppedQuicklooks = new Set(quicklookLog.filter((l) => l.msg.startsWith('quicklook skipped')).map((l) => l.jobId));
      for (const j of completed) {
        const res = await fetch(`${bases[0]}/api/v1/jobs/${j.id}/result.geojson`, { headers: auth, redirect: 'manual' });
        expect(res.status).toBe(302);
        const location = res.headers.get('location')!;
        expect(location.startsWith(`${s3.endpoint}/sarwatch-e2e/prod/results/${j.id}.${j.attempts}.geojson?`)).toBe(true);
        const download = await fetch(location);
        expect(download.status).toBe(200);
        expect(((await download.json()) as { type: string }).type).toBe('FeatureCollection');
        // Issue 22 §1: the quicklook and the overlay, written by the completing attempt to S3 and served the same way.
        // The one exception the worker allows (worker/quicklook.ts): a worker stopped (drained, or its lease lost)
        // while drawing completes the job without one and logs so; any other missing quicklook fails here.
        if (stoppedQuicklooks.has(j.id)) {
          const picture = await fetch(`${bases[1]}/api/v1/jobs/${j.id}/quicklook.png`, { headers: auth, redirect: 'manual' });
          expect([302, 404]).toContain(picture.status);
          continue;
        }
        for (const [route, folder] of [['quicklook.png', 'quicklooks'], ['overlay', 'overlays']]) {
          const picture = await fetch(`${bases[1]}/api/v1/jobs/${j.id}/${route}`, { headers: auth, redirect: 'manual' });
          expect(picture.status, `${route} of job ${j.id}`).toBe(302);
          const at = picture.headers.get('location')!;
          expect(at.startsWith(`${s3.endpoint}/sarwatch-e2e/prod/${folder}/${j.id}.${j.attempts}.png?`)).toBe(true);
          const png = await fetch(at);
          expect(png.status).toBe(200);
          expect(Buffer.from(await png.arrayBuffer()).subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
        }
      }
      // No job completed twice: the workers' logs (the killed one's up to its death) hold one
      // "job completed" line per completed job in all, each for a job the store has completed.
      const completions = deployment.processes.started.filter((p) => p.role === 'worker').flatMap((w) =>
        w
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{') && line.includes('"job completed"'))
          .map((line) => (JSON.parse(line) as { jobId: string }).jobId),
      );
      expect(new Set(completions).size).toBe(completions.length);
      expect(completions.every((id) => completed.some((j) => j.id === id))).toBe(true);
      // Every completed job's completion was seen, but possibly the one the SIGKILL cut off
      // between its commit and its log line.
      expect(completions.length).toBeGreaterThanOrEqual(completed.length - 1);

      // The scene that does not exist failed, as a job-time failure.
      const failedCodes = new Set(jobs.filter((j) => j.status === 'failed').map((j) => j.error_code));
      expect([...failedCodes].every((c) => c !== 'JOB_INTERRUPTED')).toBe(true);
    } finally {
      await db.end();
    }
  }, 30 * 60_000);
});
