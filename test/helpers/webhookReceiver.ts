/**
 * A local webhook receiver (node:http on 127.0.0.1): records every request, answers with the
 * statuses it is told to (then 200), or not at all. Webhook tests point the service at it
 * with SARWATCH_WEBHOOK_ALLOW_PRIVATE=1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** Statuses for the next requests, consumed one each (then 200). */
  failNext(...statuses: number[]): void;
  /** Answer nothing at all (a hung receiver) while true. */
  hang: boolean;
  /** Body of 200 answers. */
  replyBody: string;
  /** Resolves once `n` requests have arrived (after the answer was sent). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const statuses: number[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const r: Receiver = {
    url: '',
    received: [],
    hang: false,
    replyBody: 'ok',
    failNext: (...s) => statuses.push(...s),
    waitFor(n, timeoutMs = 20_000) {
      if (r.received.length >= n) return Promise.resolve(r.received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${r.received.length} of ${n} requests`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(r.received)) });
      });
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (r.hang) return;
      r.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? r.replyBody : `failing on purpose (${status})`);
      for (const w of [...waiters]) if (r.received.length >= w.n) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return r;
}
