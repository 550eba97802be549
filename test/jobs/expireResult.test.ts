/**
 * Issue 20 §1, retention as a transition: expireResult is one guarded statement on an injected
 * clock, and the sweep deletes a due job's objects and then expires it — once, however many
 * sweepers race. On SQLite and PostgreSQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/index.ts';
import { createAccount } from '../../src/jobs/accounts.ts';
import { claimJob, completeJob, createJob, expireResult, resultsDueToExpire } from '../../src/jobs/transitions.ts';
import { addDays } from '../../src/time.ts';
import { FileObjectStore } from '../../src/objects/file.ts';
import { sweepExpiredResults } from '../../src/worker/retention.ts';
import { tempDataDir } from '../helpers/service.ts';
import { STORE_KINDS, closeStores, freshStore } from '../helpers/stores.ts';

afterAll(closeStores);

async function pendingJob(db: Db, accountId: string) {
  const now = new Date().toISOString();
  return createJob(
    db,
    {
      id: randomUUID(), account_id: accountId, endpoint_id: 'timeseries', family: 'analyze', satellite_id: 'sentinel-1',
      created_at: now, updated_at: now, request_params: '{}', credits_reserved_micros: 0, credits_used_micros: null,
      area_sqkm: null, lat: null, lon: null, coverage: null, scene_selection: null, warnings: '[]', error_code: null, error_message: null,
      progress: null, result_key: null, result_expires_at: null, result_deleted_at: null, lease_owner: null, lease_expires_at: null,
      idempotency_key: null, request_hash: null,
    },
    { maxConcurrentJobs: 100 },
  );
}

/** A completed job kept `retentionDays`, with a result and a quicklook object in `objects`. */
async function completedJob(db: Db, objects: FileObjectStore, accountId: string, retentionDays = 30) {
  const job = await pendingJob(db, accountId);
  expect(await claimJob(db, job.id, 'w1', 60)).not.toBeNull();
  const resultKey = `results/${job.id}.geojson`;
  const quicklookKey = `quicklooks/${job.id}.png`;
  await objects.put(resultKey, '{"type":"FeatureCollection","features":[]}', 'application/geo+json');
  await objects.put(quicklookKey, 'png', 'image/png');
  const row = await completeJob(db, job.id, 'w1', {
    resultKey, areaSqkm: 1, lat: null, lon: null, coverage: null, sceneSelection: null, warnings: [], pricePerSqkm: 0, retentionDays,
    quicklook: { key: quicklookKey, overlay: null },
  });
  return row!;
}

const jobRow = (db: Db, id: string) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe.each(STORE_KINDS)('result retention on %s', (kind) => {
  it('expireResult changes a completed job only once it is due, and only once', async () => {
    const { db } = await freshStore(kind);
    const { accountId } = await createAccount(db, { name: 'retention', credits: 10 });
    const objects = new FileObjectStore(path.join(tempDataDir(), 'objects'), Buffer.alloc(32, 1), '/objects');
    const job = await completedJob(db, objects, accountId);
    const due = job.result_expires_at!;
    expect(due).toBe(addDays(job.completed_at!, 30));

    const early = addDays(due, -0.001);
    expect(await resultsDueToExpire(db, early, 10)).toEqual([]);
    expect(await expireResult(db, job.id, early)).toBe(false);
    expect((await jobRow(db, job.id)).result_deleted_at).toBeNull();

    expect((await resultsDueToExpire(db, due, 10)).map((j) => j.id)).toEqual([job.id]);
    expect(await expireResult(db, job.id, due)).toBe(true);
    const after = await jobRow(db, job.id);
    expect(after.result_deleted_at).toBe(due);
    expect(after.status).toBe('completed');
    expect(after.result_key).toBe(job.result_key);
    expect(await expireResult(db, job.id, addDays(due, 1))).toBe(false);
    expect((await jobRow(db, job.id)).result_deleted_at).toBe(due);
    expect(await resultsDueToExpire(db, addDays(due, 1), 10)).toEqual([]);

    // The status guard: a job that is not completed is never expired, whatever its dates say.
    const pending = await pendingJob(db, accountId);
    await db.updateTable('jobs').set({ result_expires_at: early }).where('id', '=', pending.id).execute();
    expect(await expireResult(db, pending.id, due)).toBe(false);
    expect(await resultsDueToExpire(db, due, 10)).toEqual([]);
  });

  it('the sweep deletes the objects of due jobs only and expires each once, with racing sweepers', async () => {
    const { db } = await freshStore(kind);
    const { accountId } = await createAccount(db, { name: 'sweep', credits: 10 });
    const root = path.join(tempDataDir(), 'objects');
    const objects = new FileObjectStore(root, Buffer.alloc(32, 1), '/objects');
    const short = [await completedJob(db, objects, accountId, 1), await completedJob(db, objects, accountId, 1), await completedJob(db, objects, accountId, 1)];
    const kept = await completedJob(db, objects, accountId, 30);
    const now = addDays(short.map((j) => j.result_expires_at!).sort().at(-1)!, 0.5);

    const counts = await Promise.all([sweepExpiredResults(db, objects, { now }), sweepExpiredResults(db, objects, { now }), sweepExpiredResults(db, objects, { now, batch: 1 })]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
    for (const j of short) {
      expect(fs.existsSync(path.join(root, j.result_key!))).toBe(false);
      expect(fs.existsSync(path.join(root, j.quicklook_key!))).toBe(false);
      expect((await jobRow(db, j.id)).result_deleted_at).toBe(now);
    }
    expect(fs.existsSync(path.join(root, kept.result_key!))).toBe(true);
    expect(fs.existsSync(path.join(root, kept.quicklook_key!))).toBe(true);
    expect((await jobRow(db, kept.id)).result_deleted_at).toBeNull();
    expect(await sweepExpiredResults(db, objects, { now })).toBe(0);
  });
});
