/**
 * A backing service that does not answer is the deployment's trouble, not the client's and
 * not a bug: 503 SERVICE_UNAVAILABLE with Retry-After in the envelope, never a 500. Here the
 * embedded store: another process holds SQLite's write lock, as a long `sarwatch` CLI
 * transaction or a backup tool would. The server waits for it (10 s by default, 2 s here)
 * without blocking its event loop: other requests are answered meanwhile; a submission goes
 * through once the lock is released, or gets the 503 past the deadline. (The PostgreSQL pass
 * skips it: the lock is SQLite's.)
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { TEST_STORE } from '../helpers/services.ts';
import { isBackendUnavailable } from '../../src/api/errors.ts';

const BUSY_TIMEOUT_MS = 2000;

// Two services on their own stores: one whose submissions wait (far) longer than the test holds
// the lock, so the release, not a race with the deadline, decides the outcome; one with a 2 s
// deadline to run out.
let patient: TestService;
let t: TestService;
beforeAll(async () => {
  patient = await startTestService({}, { sqliteBusyTimeoutMs: 60_000 });
  t = await startTestService({}, { sqliteBusyTimeoutMs: BUSY_TIMEOUT_MS });
});
afterAll(async () => {
  await patient?.close();
  await t?.close();
});

/**
 * /healthz on `s` over and over (20 ms apart) while `pending` is unsettled; how many answers
 * came back while it was still unsettled. Stops early once `enough` answers came back, when
 * given. Every answer must be 200.
 */
async function healthzWhile(s: TestService, pending: Promise<unknown>, enough = Infinity): Promise<number> {
  let settled = false;
  void pending.finally(() => (settled = true)).catch(() => {});
  let answeredWhilePending = 0;
  while (!settled && answeredWhilePending < enough) {
    const res = await s.http('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    if (!settled) answeredWhilePending++;
    await new Promise((r) => setTimeout(r, 20));
  }
  return answeredWhilePending;
}

const body = { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_GRDH_1SDV_20200101T000000_20200101T000025_030000_036F00_BE0C' };

// What the event loop being free means here is counted, not timed: /healthz answers that came
// back while the submission was still waiting for the lock. A loop blocked inside SQLite's busy
// handler (the store before src/store/sqliteBusy.ts, busy_timeout 10 s) answers none until the
// wait is over, and the lock here is released only after five of them — so such a store would
// hold it until its own deadline and answer 503. No wall-clock bound: a loaded 2-core CI
// machine took 224 ms for one answer (2026-12-06), which a bound of 500 ms left little room for.
describe('a backing service that does not answer', () => {
  it.skipIf(TEST_STORE === 'postgres')('SQLite locked by another process: the server keeps answering (/healthz) while a submission waits, and the submission goes through once the lock is released', async () => {
    const other = new Database(path.join(patient.dataDir, 'sarwatch.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      let released = false;
      let answeredBeforeRelease = false;
      const submission = patient.http('POST', '/api/v1/analyze/ship', { body }).finally(() => (answeredBeforeRelease = !released));
      // Five answers while the submission waits, then the lock goes.
      const healthz = await healthzWhile(patient, submission, 5);
      expect(healthz).toBe(5);
      other.exec('COMMIT');
      released = true;
      const res = await submission;
      // It did wait for the lock: not answered before the release.
      expect(answeredBeforeRelease).toBe(false);
      expect(res.status).toBe(200);
      expect(res.json.job_id).toEqual(expect.any(String));
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  }, 60_000);

  it.skipIf(TEST_STORE === 'postgres')('SQLite locked by another process past the deadline: a submission gets 503 SERVICE_UNAVAILABLE with Retry-After (the server answering meanwhile), and goes through once the lock is gone', async () => {
    const other = new Database(path.join(t.dataDir, 'sarwatch.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      const submission = t.http('POST', '/api/v1/analyze/ship', { body });
      const healthz = await healthzWhile(t, submission);
      const res = await submission;
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.json.error.message).toMatch(/did not answer; retry later/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The store's deadline is on the real clock (Date.now in sqliteBusy.ts), not a timer, so
      // the wait cannot have been shorter, whatever the load.
      expect(Date.now() - started).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS);
      // Answered during the 2 s wait. Three answers 20 ms apart leave each of them over 600 ms
      // on a loaded machine (224 ms measured); a blocked loop answers none.
      expect(healthz).toBeGreaterThanOrEqual(3);
      other.exec('ROLLBACK');
      const retried = await t.http('POST', '/api/v1/analyze/ship', { body });
      expect(retried.status).toBe(200);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  }, 30_000);

  it('what counts as "did not answer": socket, PostgreSQL connection and SQLite lock errors; not a bug', () => {
    const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
    expect(isBackendUnavailable(coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isBackendUnavailable(coded('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isBackendUnavailable(coded('sorry, too many clients already', '53300'))).toBe(true);
    expect(isBackendUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isBackendUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isBackendUnavailable(coded('database is locked', 'SQLITE_BUSY'))).toBe(true);
    expect(isBackendUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isBackendUnavailable(coded('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isBackendUnavailable('ECONNREFUSED')).toBe(false);
  });
});
