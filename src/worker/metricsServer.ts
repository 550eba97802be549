/**
 * A worker-only process (`sarwatch worker`) has no HTTP API, yet it is where jobs run: their
 * duration histograms and failures by error code are observed there. With
 * SARWATCH_METRICS_PORT set it answers `GET /metrics` on a listener of its own (nothing
 * else: every other path is 404), so Prometheus scrapes each worker as it scrapes each API.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** `http://host:port`. */
  url: string;
  close(): Promise<void>;
}

export async function serveMetrics(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || pathname !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'this listener serves GET /metrics only' } }));
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(body),
      () => res.writeHead(503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'the metrics could not be collected (is the store reachable?)' } })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
