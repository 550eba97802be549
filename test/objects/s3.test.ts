/**
 * Issue 13, Objects: the S3 adapter against an S3-compatible server (s3rver, started here).
 * Results are written to the bucket under the STORAGE_URL prefix, and the result download
 * is a 302 to a presigned GET that carries the download filename and content type.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore, createS3Client, parseS3Url } from '../../src/objects/s3.ts';
import { createRegistry } from '../../src/endpoints/analysisRegistry.ts';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from '../helpers/s3.ts';
import { TINY_SQUARE, startTestService, waitForTerminal, type TestService } from '../helpers/service.ts';
import { aoiEchoTestDetector } from '../helpers/testDetectors.ts';
import { sweepExpiredResults } from '../../src/worker/retention.ts';

// The SDK reads credentials from the usual AWS environment, as in production.
Object.assign(process.env, S3RVER_CREDENTIALS);

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.close();
});

describe('STORAGE_URL parsing', () => {
  it('s3://bucket/prefix gives the bucket and a slash-terminated prefix; anything else is refused', () => {
    expect(parseS3Url('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b/' });
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(() => parseS3Url('https://my-bucket/x')).toThrow(/s3:\/\/bucket/);
    expect(() => parseS3Url('s3://UPPER/x')).toThrow();
  });
});

describe('S3ObjectStore on s3rver', () => {
  const store = async () => new S3ObjectStore(await createS3Client({ endpoint: s3.endpoint, forcePathStyle: true }), parseS3Url(`s3://${s3.bucket}/p`));

  it('put, get, delete; a missing object is null', async () => {
    const objects = await store();
    await objects.put('results/a.geojson', '{"type":"FeatureCollection","features":[]}', 'application/geo+json');
    const got = await objects.get('results/a.geojson');
    expect(got?.contentType).toBe('application/geo+json');
    expect(got?.size).toBe(Buffer.byteLength('{"type":"FeatureCollection","features":[]}'));
    const chunks: Buffer[] = [];
    for await (const c of got!.body) chunks.push(c as Buffer);
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toEqual({ type: 'FeatureCollection', features: [] });
    await objects.delete('results/a.geojson');
    expect(await objects.get('results/a.geojson')).toBeNull();
    expect(await objects.get('results/never-written.geojson')).toBeNull();
  });

  it('issue 20 §2: deletePrefix deletes every object under a folder (a job\'s tile results), nothing beside it', async () => {
    const objects = await store();
    const keys = ['tiles/job-1/a.v8', 'tiles/job-1/b.v8', 'tiles/job-1/c.v8'];
    const kept = ['tiles/job-10/a.v8', 'tiles/job-1.v8', 'results/job-1.1.geojson'];
    for (const key of [...keys, ...kept]) await objects.put(key, key, 'application/octet-stream');
    await objects.deletePrefix('tiles/job-1/');
    for (const key of keys) expect(await objects.get(key)).toBeNull();
    for (const key of kept) {
      const got = await objects.get(key);
      expect(got).not.toBeNull();
      got!.body.destroy();
    }
    await objects.deletePrefix('tiles/job-1/'); // nothing left: a no-op
    await expect(objects.deletePrefix('tiles/job-10')).rejects.toThrow(/folder ending in \//);
    for (const key of kept) await objects.delete(key);
  });

  it('issue 14: putFile streams a local file into the bucket (an image upload), byte for byte', async () => {
    const objects = await store();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-s3-putfile-'));
    const file = path.join(dir, 'image.tif');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 31) % 251));
    fs.writeFileSync(file, bytes);
    await objects.putFile('uploads/tifs/x/original.tif', file, 'image/tiff');
    const got = await objects.get('uploads/tifs/x/original.tif');
    expect(got?.contentType).toBe('image/tiff');
    expect(got?.size).toBe(bytes.length);
    const chunks: Buffer[] = [];
    for await (const c of got!.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    await objects.delete('uploads/tifs/x/original.tif');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a presigned URL downloads without credentials, with the filename and content type, until it expires', async () => {
    const objects = await store();
    await objects.put('results/b.geojson', '{"type":"FeatureCollection","features":[]}', 'application/octet-stream');
    const url = await objects.presign('results/b.geojson', { expiresInSeconds: 60, filename: 'ship_b.geojson', contentType: 'application/geo+json' });
    expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/p/results/b.geojson?`)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    expect(res.headers.get('content-disposition')).toContain('filename="ship_b.geojson"');
    expect(await res.json()).toEqual({ type: 'FeatureCollection', features: [] });
    // The filename and type are query parameters, which SigV4 signs with the rest (s3rver does
    // not verify SigV4 signatures, so only their presence is checked here; expiry it checks).
    const query = new URL(url).searchParams;
    expect(query.get('response-content-disposition')).toBe(`attachment; filename="ship_b.geojson"; filename*=UTF-8''ship_b.geojson`);
    expect(query.get('response-content-type')).toBe('application/geo+json');
    expect(query.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    const expired = await objects.presign('results/b.geojson', { expiresInSeconds: 1, filename: 'x.geojson', contentType: 'application/geo+json' });
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fetch(expired)).status).toBe(403);
  });

  it('an unreachable bucket is reported, not thrown', async () => {
    expect(await (await store()).reachable()).toBe(true);
    const missing = new S3ObjectStore(await createS3Client({ endpoint: s3.endpoint, forcePathStyle: true }), parseS3Url('s3://no-such-bucket'));
    expect(await missing.reachable()).toBe(false);
  });
});

describe('the service with STORAGE_URL=s3://…', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(s3.env, { registry: createRegistry([aoiEchoTestDetector('timeseries')]) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a completed result is in the bucket; result.geojson is a 302 to a presigned URL named {endpoint_id}_{job_id}.geojson', async () => {
    const { job_id } = await t.client.submit('analyze', 'timeseries', { satellite_id: 'sentinel-1', polygon: TINY_SQUARE, date_start: '2023-01-01', date_end: '2023-12-31' });
    const job = await waitForTerminal(t.client, job_id);
    expect(job.status).toBe('completed');
    const res = await t.http('GET', `/api/v1/jobs/${job_id}/result.geojson`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/results-prefix/results/${job_id}.1.geojson?`)).toBe(true);
    const download = await fetch(location);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/geo+json');
    expect(download.headers.get('content-disposition')).toContain(`filename="timeseries_${job_id}.geojson"`);
    const body = (await download.json()) as { type: string; features: unknown[] };
    expect(body.type).toBe('FeatureCollection');
    expect(body.features).toHaveLength(1);

    // Retention: the sweeper deletes the object from the bucket.
    await t.service.db.updateTable('jobs').set({ result_expires_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', job_id).execute();
    expect(await sweepExpiredResults(t.service.db, t.service.objects)).toBe(1);
    expect(await t.service.objects.get(`results/${job_id}.1.geojson`)).toBeNull();
    expect((await fetch(location)).status).toBe(404);
  });
});
