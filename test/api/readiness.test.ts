/**
 * Issue 10, item 9: /readyz checks the store, the object store and the worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectEnvelope } from '../helpers/envelope.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('issue 10.9: /readyz checks the store, the object store and the worker', () => {
  it('200 with every check ok; documented in OpenAPI with its 503', async () => {
    const res = await t.http('GET', '/readyz', { key: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ready', checks: { store: 'ok', objects: 'ok', worker: 'ok' } });
    expect(fs.existsSync(path.join(t.dataDir, 'objects', 'readyz')) ? fs.readdirSync(path.join(t.dataDir, 'objects', 'readyz')) : []).toEqual([]);
    const doc = (await t.http('GET', '/openapi.json', { key: null })).json;
    expect(doc.paths['/readyz'].get.responses['503']).toBeDefined();
    expect(doc.paths['/healthz'].get).toBeDefined();
  });

  it('503 SERVICE_UNAVAILABLE naming the failed dependency, one after the other: worker, objects, store; /healthz stays 200', async () => {
    const s = await startTestService();
    try {
      expect((await s.http('GET', '/readyz', { key: null })).status).toBe(200);

      await s.service.queue.close();
      let res = await s.http('GET', '/readyz', { key: null });
      expect(res.status).toBe(503);
      expectEnvelope(res.status, res.text, 'SERVICE_UNAVAILABLE');
      expect(res.json.error.message).toBe('not ready: worker failed');
      expect(res.json.error.details).toEqual({ checks: { store: 'ok', objects: 'ok', worker: 'failed' } });

      const objects = path.join(s.dataDir, 'objects');
      fs.rmSync(objects, { recursive: true });
      fs.writeFileSync(objects, 'not a folder');
      res = await s.http('GET', '/readyz', { key: null });
      expect(res.json.error.details).toEqual({ checks: { store: 'ok', objects: 'failed', worker: 'failed' } });

      await s.service.db.destroy();
      res = await s.http('GET', '/readyz', { key: null });
      expect(res.status).toBe(503);
      expect(res.json.error.message).toBe('not ready: store, objects, worker failed');
      expect((await s.http('GET', '/healthz', { key: null })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
