/**
 * The HTTP API client of the dashboard: Bearer key from the session, the error envelope
 * turned into ApiError. A 401 ends the session (the key was revoked or mistyped).
 */
import { session } from './session.ts';
import type * as T from './types.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

async function request(method: string, path: string, init: { body?: unknown; raw?: Blob; contentType?: string; key?: string; accept?: string; signal?: AbortSignal } = {}): Promise<Response> {
  const key = init.key ?? session.key();
  const headers: Record<string, string> = {};
  if (key) headers.Authorization = `Bearer ${key}`;
  if (init.accept) headers.Accept = init.accept;
  let body: BodyInit | undefined;
  if (init.raw) {
    body = init.raw;
    headers['Content-Type'] = init.contentType ?? 'application/octet-stream';
  } else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(path, { method, headers, body, cache: 'no-store', signal: init.signal });
  if (!res.ok) {
    let code = `HTTP_${res.status}`;
    let msg = res.statusText || 'request failed';
    try {
      const env = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
      if (typeof env.error?.code === 'string') code = env.error.code;
      if (typeof env.error?.message === 'string') msg = env.error.message;
    } catch {
      // not the envelope (a proxy's page): keep the status text
    }
    if (res.status === 401 && !init.key) onUnauthorized();
    throw new ApiError(res.status, code, msg);
  }
  return res;
}

const json = async <R>(p: Promise<Response>): Promise<R> => (await p).json() as Promise<R>;

export const api = {
  account: (key?: string) => json<T.Account>(request('GET', '/api/v1/account', { key })),
  jobs: (query: URLSearchParams) => json<{ jobs: T.JobListItem[] }>(request('GET', `/api/v1/jobs?${query}`)),
  job: (id: string) => json<T.Job>(request('GET', `/api/v1/jobs/${encodeURIComponent(id)}`)),
  /** The job's event stream (Server-Sent Events) as a response to read; see events.ts. */
  jobEvents: (id: string, signal: AbortSignal) => request('GET', `/api/v1/jobs/${encodeURIComponent(id)}/events`, { accept: 'text/event-stream', signal }),
  submit: (family: T.Family, endpoint: string, body: T.SubmissionBody) => json<{ job_id: string }>(request('POST', `/api/v1/${family}/${endpoint}`, { body })),
  preview: (endpoint: string, body: T.SubmissionBody) => json<T.Preview>(request('POST', `/api/v1/analyze/${endpoint}/preview`, { body })),
  scenes: (query: URLSearchParams) => json<{ scenes: T.Scene[] }>(request('GET', `/api/v1/scenes?${query}`)),
  polygons: () => json<{ polygons: T.PolygonUpload[] }>(request('GET', '/api/v1/polygons')),
  tifs: () => json<{ tifs: T.TifUpload[] }>(request('GET', '/api/v1/tifs')),
  uploadPolygon: (file: Blob, contentType: string) => json<{ polygon_id: string }>(request('POST', '/api/v1/polygons', { raw: file, contentType })),
  uploadTif: (file: Blob, contentType: string) => json<{ tif_id: string }>(request('POST', '/api/v1/tifs', { raw: file, contentType })),
  deletePolygon: (id: string) => request('DELETE', `/api/v1/polygons/${encodeURIComponent(id)}`),
  deleteTif: (id: string) => request('DELETE', `/api/v1/tifs/${encodeURIComponent(id)}`),
  /** A result or quicklook: the API answers 302 to a signed URL, which fetch follows. */
  download: (path: string) => request('GET', path).then((r) => r.blob()),
  /** A GeoJSON result (302 to a signed URL, as download), parsed as it is read: no Blob and no string copy of it. */
  downloadJson: <R>(path: string) => json<R>(request('GET', path)),
  webConfig: async (): Promise<T.WebConfig> => (await fetch('/web-config.json', { cache: 'no-store' })).json() as Promise<T.WebConfig>,
};
