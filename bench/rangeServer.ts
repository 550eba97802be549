/**
 * A loopback file server for bench/remote.ts, in its own process (as a real archive is not
 * in the analysing process): GET with Range → 206, files under the folder given as argv[2],
 * plus `/item.json` (argv[3]). Prints its port on stdout and counts the bytes it sends,
 * reported on `GET /__stats` (`whole`: answers that sent a whole asset file, not the item).
 */
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const root = path.resolve(process.argv[2]!);
const itemFile = process.argv[3];
const stats = { requests: 0, bytes: 0, whole: 0 };

const server = http.createServer((req, res) => {
  const url = new URL(req.url!, 'http://loopback');
  if (url.pathname === '/__stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  const file = url.pathname === '/item.json' && itemFile ? itemFile : path.join(root, decodeURIComponent(url.pathname));
  if (!file.startsWith(root) && file !== itemFile) return void res.writeHead(403).end();
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return void res.writeHead(404).end();
  }
  stats.requests++;
  const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!m) {
    if (file !== itemFile) stats.whole++; // the item JSON is small and read whole by design
    stats.bytes += size;
    res.writeHead(200, { 'content-length': size, 'accept-ranges': 'bytes' });
    createReadStream(file).pipe(res);
    return;
  }
  const start = Number(m[1]);
  const end = Math.min(size - 1, m[2] ? Number(m[2]) : size - 1);
  stats.bytes += end - start + 1;
  res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': end - start + 1, 'accept-ranges': 'bytes' });
  createReadStream(file, { start, end, highWaterMark: 1 << 20 }).pipe(res);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
