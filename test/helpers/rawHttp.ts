/**
 * Raw HTTP/1.1 over a socket, for requests fetch refuses to send (oversized headers,
 * malformed framing, no Host) and to see exactly what the server writes back.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` as is and reads until the server closes the connection (or `Connection: close` ends it).
 * `untilResponse`: until a whole response with a Content-Length has arrived (for a request whose
 * declared body is never sent: the server may keep waiting for it).
 */
export function rawRequest(baseUrl: string, request: string | Buffer, opts: { untilResponse?: boolean } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (c) => {
      chunks.push(c);
      if (!opts.untilResponse) return;
      const text = Buffer.concat(chunks);
      const end = text.indexOf('\r\n\r\n');
      const length = end < 0 ? null : /\r\ncontent-length:\s*(\d+)/i.exec(text.subarray(0, end).toString('latin1'));
      if (length && text.length >= end + 4 + Number(length[1])) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parse(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        reject(e);
      }
    });
    socket.write(request);
  });
}

function parse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
  const headers = Object.fromEntries(
    lines.map((l) => {
      const i = l.indexOf(':');
      return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()];
    }),
  );
  let body = text.slice(end + 4);
  if (headers['content-length'] !== undefined) body = Buffer.from(body).subarray(0, Number(headers['content-length'])).toString('utf8');
  return { status, headers, body };
}
