/**
 * A backing service that does not answer is the deployment's trouble, not the client's and
 * not a bug: 503 SERVICE_UNAVAILABLE with Retry-After in the envelope, never a 500. Here the
 * embedded store: another process holds SQLite's write lock past the busy timeout (10 s), as
 * a long `sarwatch` CLI transaction or a backup tool would. (The PostgreSQL pass skips it:
 * the lock is SQLite's.)
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { TEST_STORE } from '../helpers/services.ts';
import { isBackendUnavailable } from '../../src/api/errors.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t?.close());

describe('a backing service that does not answer', () => {
  it.skipIf(TEST_STORE === 'postgres')('SQLite locked by another process past the busy timeout: a submission gets 503 SERVICE_UNAVAILABLE with Retry-After, and goes through once the lock is gone', async () => {
    const other = new Database(path.join(t.dataDir, 'sarwatch.db'));
    const body = { satellite_id: 'sentinel-1', scene_id: 'S1A_IW_GRDH_1SDV_20200101T000000_20200101T000025_030000_036F00_BE0C' };
    try {
      other.exec('BEGIN IMMEDIATE');
      const res = await t.http('POST', '/api/v1/analyze/ship', { body });
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.json.error.message).toMatch(/did not answer; retry later/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      other.exec('ROLLBACK');
      const retried = await t.http('POST', '/api/v1/analyze/ship', { body });
      expect(retried.status).toBe(200);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  }, 60_000);

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
