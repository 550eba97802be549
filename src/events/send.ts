/**
 * One delivery attempt over HTTP(S): POST the body to the pinned, checked address with the
 * Standard Webhooks headers, 10 s for the whole attempt, no redirects followed, at most
 * 1 KiB of the answer kept. Never throws: the outcome says what happened.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, WebhookTargetError } from './ssrf.ts';

export const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Why it failed (network, timeout, refused target, non-2xx), for the delivery log. */
  error: string | null;
  body: string | null;
}

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Extra TLS trust for a receiver with its own certificate authority (tests, on-premises). */
  ca?: string | Buffer;
}

// Keep-alive pools: a busy receiver gets its connections reused. A pooled socket is only
// ever one that was opened to an address checked by resolveTarget.
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

export async function sendWebhook(o: SendOptions): Promise<AttemptOutcome> {
  const url = new URL(o.url);
  let target: { address: string; family: 4 | 6 };
  try {
    target = await resolveTarget(url.hostname, o.allowPrivate);
  } catch (e) {
    const message = e instanceof WebhookTargetError ? e.message : `DNS lookup failed (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
    return { ok: false, statusCode: null, error: message, body: null };
  }
  // The connection goes to the address just checked, whatever DNS would answer now.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const isHttps = url.protocol === 'https:';
  const transport = isHttps ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
        lookup: pinned,
        agent: o.ca ? undefined : isHttps ? agents.https : agents.http,
        ...(isHttps ? { servername: url.hostname, ...(o.ca ? { ca: o.ca } : {}) } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < RESPONSE_BODY_LIMIT) {
            chunks.push(c.subarray(0, RESPONSE_BODY_LIMIT - kept));
            kept += Math.min(c.length, RESPONSE_BODY_LIMIT - kept);
          }
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const body = Buffer.concat(chunks).toString('utf8');
          const ok = status >= 200 && status < 300;
          finish({
            ok,
            statusCode: status,
            error: ok ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`,
            body,
          });
        };
        res.on('end', done);
        res.on('error', () => finish({ ok: false, statusCode: res.statusCode ?? null, error: 'the response was cut off', body: null }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, statusCode: null, error: `no answer within ${o.timeoutMs / 1000} s`, body: null });
    }, o.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish({ ok: false, statusCode: null, error: `connection failed (${e.code ?? e.message})`, body: null }));
    req.end(o.body);
  });
}
