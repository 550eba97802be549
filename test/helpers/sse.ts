/** A test client for text/event-stream responses: every event and comment as it arrives, and the end. */

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body as JSON when the server answered with an error instead of a stream. */
  json: any;
  events: SseEvent[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits (up to `timeoutMs`) until `ok` holds for the events received so far. */
  until(ok: (s: SseStream) => boolean, timeoutMs?: number): Promise<void>;
  /** The client goes away. */
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  let ended = false;
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    json: null,
    events: [],
    comments: [],
    ended: Promise.resolve(),
    isEnded: () => ended,
    async until(ok, timeoutMs = 30_000) {
      if (ok(stream)) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`stream: condition not met in ${timeoutMs} ms; events ${JSON.stringify(stream.events)}, ended ${ended}`));
        }, timeoutMs);
        const check = () => {
          if (!ok(stream)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () => abort.abort(),
  };
  if (res.status !== 200) {
    stream.json = await res.json().catch(() => null);
    ended = true;
    return stream;
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          parseBlock(block, stream);
        }
        notify();
      }
    } catch {
      // closed by the client
    } finally {
      ended = true;
      notify();
    }
  })();
  return stream;
}

function parseBlock(block: string, stream: SseStream): void {
  const fields: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      stream.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
  }
  if (fields.data !== undefined) stream.events.push({ id: Number(fields.id), event: fields.event ?? 'message', data: JSON.parse(fields.data) });
}
