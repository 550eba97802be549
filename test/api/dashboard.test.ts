/**
 * Issue 22 §2, the server side of the dashboard (no browser needed): the built files at `/`
 * without a key under a strict Content-Security-Policy and cache headers; the policy's
 * sources follow the configuration (online basemap, presigned object store); a checkout
 * without a build says how to make one; the API keeps its auth; GET /api/v1/account.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import zlib from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dashboardCsp, objectStoreOrigins } from '../../src/api/dashboard.ts';
import { loadConfig } from '../../src/config.ts';
import { SCOPES } from '../../src/contract/enums.ts';

/** A stand-in build: the server serves whatever folder it is given. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-webdir-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title><script type="module" src="/assets/app-abc123.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(dir, 'assets', 'worker-def456.mjs'), 'self.onmessage = () => {}');
  // The build's compressed twins (bin/build-web.js), of a file big enough to have them.
  fs.writeFileSync(path.join(dir, 'assets', 'big-789abc.js'), BIG_JS);
  fs.writeFileSync(path.join(dir, 'assets', 'big-789abc.js.br'), zlib.brotliCompressSync(BIG_JS));
  fs.writeFileSync(path.join(dir, 'assets', 'big-789abc.js.gz'), zlib.gzipSync(BIG_JS));
  return dir;
}
const BIG_JS = Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i * 7};`).join('\n');

/** A GET with exactly these request headers (fetch would add its own Accept-Encoding and decode). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('the dashboard served at /', () => {
  let t: TestService;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    t = await startTestService({ SARWATCH_WEB_DIR: dir, SARWATCH_BASEMAP_URL: 'https://tiles.example.org/{z}/{x}/{y}.png' });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('index.html with no key: revalidated on every load, a strict policy, nosniff, no referrer', async () => {
    const res = await t.http('GET', '/', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; worker-src 'none'; img-src 'self' data: https://tiles.example.org; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect((await t.http('GET', '/index.html', { key: null })).status).toBe(200);
  });

  it('hashed assets are immutable for a year; a module worker is served as JavaScript', async () => {
    const js = await t.http('GET', '/assets/app-abc123.js', { key: null });
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const worker = await t.http('GET', '/assets/worker-def456.mjs', { key: null });
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
  });

  it('text assets go out as the build’s brotli or gzip twin when the browser accepts it, plain otherwise; Vary: Accept-Encoding, same cache and policy headers', async () => {
    const url = `${t.url}/assets/big-789abc.js`;
    const br = await rawGet(url, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(BIG_JS);
    expect(br.body.length).toBeLessThan(BIG_JS.length / 3);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-security-policy']).toContain("default-src 'none'");
    const gz = await rawGet(url, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(BIG_JS);
    const plain = await rawGet(url, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(BIG_JS);
  });

  it('the API keeps its key, and unknown /api/v1 paths keep their envelope (the static files add no catch-all route)', async () => {
    expect((await t.http('GET', '/api/v1/jobs', { key: null })).status).toBe(401);
    const unknown = await t.http('GET', '/api/v1/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('NOT_FOUND');
    const missing = await t.http('GET', '/assets/nope.js', { key: null });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOT_FOUND');
  });

  it('/web-config.json tells the page the online basemap', async () => {
    const res = await t.http('GET', '/web-config.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ basemap_url: 'https://tiles.example.org/{z}/{x}/{y}.png' });
  });

  it('GET /api/v1/account: the balance, the key’s scopes and endpoints; 401 without a key', async () => {
    const res = await t.http('GET', '/api/v1/account');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    // A key made without a scope list has every scope.
    expect(res.json).toEqual({ account_id: t.accountId, credits: { balance: 1000 }, scopes: [...SCOPES].sort(), endpoints: null });
    const limited = await t.newAccount({ credits: 12.5, scopes: ['jobs:read'], endpoints: ['ship'] });
    const other = await t.http('GET', '/api/v1/account', { key: limited.apiKey });
    expect(other.json).toEqual({ account_id: limited.accountId, credits: { balance: 12.5 }, scopes: ['jobs:read'], endpoints: ['ship'] });
    expect((await t.http('GET', '/api/v1/account', { key: null })).status).toBe(401);
  });
});

describe('a checkout whose install did not build the dashboard', () => {
  let t: TestService;
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-nobuild-'));
  beforeAll(async () => {
    t = await startTestService({ SARWATCH_WEB_DIR: empty });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('GET / answers 404 with the command that builds it; the API is unaffected', async () => {
    const res = await t.http('GET', '/', { key: null });
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain('npm run build:web');
    expect((await t.http('GET', '/api/v1/jobs')).status).toBe(200);
  });
});

describe('the policy and the basemap setting', () => {
  it('SARWATCH_BASEMAP_URL must be an http(s) template with {z}, {x} and {y}', () => {
    expect(loadConfig({ SARWATCH_BASEMAP_URL: 'https://a.tile.example/{z}/{x}/{y}.png' }).basemapUrl).toBe('https://a.tile.example/{z}/{x}/{y}.png');
    expect(loadConfig({}).basemapUrl).toBe('');
    for (const bad of ['javascript:alert(1)//{z}{x}{y}', 'https://tiles.example/{z}/{x}.png', "https://x.example/{z}/{x}/{y}.png' ; script-src *", 'ftp://x/{z}/{x}/{y}']) {
      expect(() => loadConfig({ SARWATCH_BASEMAP_URL: bad }), bad).toThrow(/SARWATCH_BASEMAP_URL/);
    }
  });

  it('connect-src names the object store only when results are presigned elsewhere', () => {
    const base = { storageUrl: '', s3Endpoint: '', s3ForcePathStyle: false };
    expect(objectStoreOrigins(base)).toEqual([]);
    expect(objectStoreOrigins({ ...base, storageUrl: 's3://bucket/p' })).toEqual(['https://*.amazonaws.com']);
    expect(objectStoreOrigins({ storageUrl: 's3://b', s3Endpoint: 'http://127.0.0.1:4569', s3ForcePathStyle: true })).toEqual(['http://127.0.0.1:4569']);
    expect(objectStoreOrigins({ storageUrl: 's3://b', s3Endpoint: 'https://minio.example:9000', s3ForcePathStyle: false })).toEqual(['https://*.minio.example:9000']);
    const csp = dashboardCsp({ basemapUrl: '', connectOrigins: ['http://127.0.0.1:4569'] });
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:4569;");
    expect(csp).toContain("img-src 'self' data:;");
    expect(csp).not.toMatch(/unsafe|blob:|\*(?!\.)/);
  });
});
