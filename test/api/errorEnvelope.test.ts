/**
 * Issue 10, item 2: every error keeps the envelope.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { rawRequest } from '../helpers/rawHttp.ts';
import { expectEnvelope } from '../helpers/envelope.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('issue 10.2: every error keeps the envelope', () => {
  it('GET /objects/%25 (decoded once by the router) is 403 FORBIDDEN, not 500', async () => {
    const res = await t.http('GET', '/objects/%25', { key: null });
    expect(res.status).toBe(403);
    expectEnvelope(res.status, res.text, 'FORBIDDEN');
    const signed = await t.http('GET', '/objects/results/%25.geojson?expires=1&filename=a&type=b&sig=c', { key: null });
    expect(signed.status).toBe(403);
  });

  it('malformed percent-encoding in the path: 400 VALIDATION_ERROR, after authentication', async () => {
    const res = await t.http('GET', '/api/v1/jobs/%E0%A4%A');
    expect(res.status).toBe(400);
    expectEnvelope(res.status, res.text, 'VALIDATION_ERROR');
    expect(res.json.error.message).toBe('the URL path is not valid percent-encoded UTF-8');
    const anonymous = await t.http('GET', '/api/v1/jobs/%E0%A4%A', { key: null });
    expect(anonymous.status).toBe(401);
    expectEnvelope(anonymous.status, anonymous.text, 'UNAUTHORIZED');
    const outside = await t.http('GET', '/objects/%E0%A4%A', { key: null });
    expect(outside.status).toBe(400);
    expectEnvelope(outside.status, outside.text, 'VALIDATION_ERROR');
  });

  it('a job id over 100 characters: 404 NOT_FOUND (ids are UUIDs), not 414 with a framework body', async () => {
    for (const suffix of ['', '/result.geojson']) {
      const res = await t.http('GET', `/api/v1/jobs/${'a'.repeat(101)}${suffix}`);
      expect(res.status).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
    }
    expect((await t.http('GET', `/api/v1/jobs/${'a'.repeat(101)}`, { key: null })).status).toBe(401);
  });

  it('oversized headers: 431 HEADERS_TOO_LARGE with the envelope', async () => {
    const res = await rawRequest(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectEnvelope(res.status, res.body, 'HEADERS_TOO_LARGE');
  });

  it('malformed framing and garbage: 400 VALIDATION_ERROR with the envelope', async () => {
    const requests = [
      'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /api/v1/detect/ship HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /api/v1/detect/ship HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
      '\u0001\u0002 nonsense\r\n\r\n',
      'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
    ];
    for (const request of requests) {
      const res = await rawRequest(t.url, request);
      expect(res.status, JSON.stringify(request)).toBe(400);
      expectEnvelope(res.status, res.body, 'VALIDATION_ERROR');
      expect(res.body).toMatch(/not well-formed HTTP/);
    }
  });

  it('HTTP/1.1 without Host: 400 VALIDATION_ERROR with the envelope; an unknown Expect is ignored, not a bare 417', async () => {
    const noHost = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(noHost.status).toBe(400);
    expectEnvelope(noHost.status, noHost.body, 'VALIDATION_ERROR');
    expect(JSON.parse(noHost.body).error.message).toMatch(/Host header/);
    const expect417 = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n');
    expect(expect417.status).toBe(200);
    expect(JSON.parse(expect417.body).status).toBe('ok');
  });

  it('unknown methods and routes: 404 NOT_FOUND with the envelope', async () => {
    for (const [method, p] of [
      ['DELETE', '/api/v1/jobs'],
      ['PATCH', '/healthz'],
      ['GET', '/api/v1/nothing'],
    ] as const) {
      const res = await t.http(method, p);
      expect(res.status, `${method} ${p}`).toBe(404);
      expectEnvelope(res.status, res.text, 'NOT_FOUND');
    }
  });

  it('a body that is not JSON or is empty: 400 VALIDATION_ERROR; wrong media type 415', async () => {
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['', { 'Content-Type': 'application/json' }, 400, 'VALIDATION_ERROR'],
      ['{"a":', { 'Content-Type': 'application/json' }, 400, 'VALIDATION_ERROR'],
      ['{"__proto__": {"x": 1}}', { 'Content-Type': 'application/json' }, 400, 'VALIDATION_ERROR'],
      ['<xml/>', { 'Content-Type': 'text/xml' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ];
    for (const [rawBody, headers, status, code] of cases) {
      const res = await t.http('POST', '/api/v1/detect/ship', { rawBody, headers });
      expect(res.status, rawBody).toBe(status);
      expectEnvelope(res.status, res.text, code);
    }
  });

  it('a server that starts closing answers the request in flight with Connection: close and ends the connection, so close() never waits out keep-alive', async () => {
    const s = await startTestService();
    const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(s.url).port) });
    const received: Buffer[] = [];
    socket.on('data', (c) => received.push(c));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    // The first request is in flight (routed, its body not yet sent: Node answers 100 Continue
    // as it hands the request to the router) when the server starts closing.
    socket.write(
      `POST /api/v1/detect/ship HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n',
    );
    while (!Buffer.concat(received).toString().includes('100 Continue')) await new Promise((resolve) => socket.once('data', resolve));
    const closing = s.close();
    while (s.service.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    // Its body, then a second request pipelined behind it on the same connection.
    socket.write('{}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closing;
    const text = Buffer.concat(received).toString('utf8');
    // 100 Continue, then the first request's own answer (it was routed before the close), which
    // ends the connection: the pipelined request is left for the client to send elsewhere.
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 100', 'HTTP/1.1 400']);
    const first = text.slice(text.lastIndexOf('HTTP/1.1 '));
    expect(first).toMatch(/\r\nconnection: close\r\n/i);
    expectEnvelope(400, first.slice(first.indexOf('\r\n\r\n') + 4), 'VALIDATION_ERROR');
  });
});
