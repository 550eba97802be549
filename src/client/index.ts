/**
 * Typed TypeScript SDK for the sarwatch v1 API.
 *
 *   const client = new SarwatchClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 *   const { job_id } = await client.submit('analyze', 'ship', { satellite_id: 'sentinel-1', scene_id });
 *   const job = await client.wait(job_id);
 *   const geojson = await client.downloadResult(job_id);
 *   const png = await client.downloadQuicklook(job_id); // the detections drawn on what was analysed
 *
 *   // An AOI file as an upload, then jobs on it by polygon_id:
 *   const { polygon_id } = await client.uploadPolygons(fs.readFileSync('fields.kml'), 'kml');
 *   await client.waitForPolygonUpload(polygon_id); // ready, or PolygonUploadFailedError
 *   await client.submit('analyze', 'timeseries', { satellite_id: 'sentinel-1', polygon_id, date_start, date_end });
 *   // idle farmland: the upload's features are the fields; the result is a zip
 *   const { job_id } = await client.submit('analyze', 'idlefarm', { satellite_id: 'sentinel-1', polygon_id, date_start, date_end });
 *   await client.wait(job_id);
 *   fs.writeFileSync('result.zip', await client.downloadArchive(job_id));
 *
 *   // Follow a job as it runs (Server-Sent Events), or stop it:
 *   for await (const event of client.events(job_id)) console.log(event.event, event.data.status, event.data.progress);
 *   await client.cancel(job_id); // failed with CANCELED, uncharged
 */
import type {
  FieldsJobBody,
  JobListResponse,
  JobStatusResponse,
  JobSubmissionResponse,
  PeriodJobBody,
  PolygonUpload,
  PolygonUploadAccepted,
  PolygonUploadList,
  TifUpload,
  AisUpload,
  AisUploadAccepted,
  AisUploadList,
  TifUploadAccepted,
  TifUploadList,
  PreviewResponse,
  SceneJobBody,
} from '../contract/schemas.ts';
import type { Family, JobStatus, SubmittableEndpoint } from '../contract/enums.ts';
import type { JobEventData } from '../contract/jobEvents.ts';
import { JobFailedError, PolygonUploadFailedError, WaitTimeoutError, errorFromResponse } from './errors.ts';

export * from './errors.ts';
export type { FieldsJobBody, JobListResponse, JobStatusResponse, JobSubmissionResponse, PreviewResponse, SceneJobBody, PeriodJobBody, PolygonUpload, PolygonUploadAccepted, PolygonUploadList, TifUpload, TifUploadAccepted, TifUploadList, AisUpload, AisUploadAccepted, AisUploadList };

/** The image kinds of POST /api/v1/tifs and the Content-Type each is sent with. */
export const TIF_UPLOAD_CONTENT_TYPES = { geotiff: 'image/tiff', safe: 'application/zip' } as const;
export type TifUploadKind = keyof typeof TIF_UPLOAD_CONTENT_TYPES;

/** The file formats of POST /api/v1/polygons and the Content-Type each is sent with. */
export const POLYGON_UPLOAD_CONTENT_TYPES = {
  geojson: 'application/geo+json',
  kml: 'application/vnd.google-earth.kml+xml',
  shapefile: 'application/zip',
} as const;
export type PolygonUploadFormat = keyof typeof POLYGON_UPLOAD_CONTENT_TYPES;

export type BodyFor<E extends SubmittableEndpoint> = E extends 'ship' | 'oilslick' ? SceneJobBody : E extends 'idlefarm' ? FieldsJobBody : PeriodJobBody;

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

export interface ListOptions {
  status?: JobStatus | JobStatus[];
  endpoint_id?: string | string[];
  limit?: number;
}

/** One event of GET /jobs/{id}/events: `status` or `progress`, with the id to resume after. */
export interface JobEvent {
  id: number;
  event: 'status' | 'progress';
  data: JobEventData;
}

export interface EventsOptions {
  /** Resume after this event id (the last one seen): every later event, none repeated. */
  lastEventId?: number;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** First poll after this long (default 2 s; the spec suggests minutes for real jobs). */
  initialDelayMs?: number;
  /** Polls back off by 1.5× up to this interval (default 60 s, the spec's recommended rate). */
  maxDelayMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  /** Throw JobFailedError when the job fails (default true). */
  throwOnFailure?: boolean;
  onPoll?: (job: JobStatusResponse) => void;
  signal?: AbortSignal;
}

export class SarwatchClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
  }

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
    redirect: 'follow' | 'manual' = 'follow',
    extraHeaders: Record<string, string> = {},
    /** A file sent as it is (uploads) instead of a JSON body. */
    raw?: { body: Uint8Array | string; contentType: string },
  ): Promise<{ value: T; response: Response }> {
    const response = await this.fetchImpl(`${this.baseUrl}${path}`, {
      method,
      redirect,
      headers: {
        Authorization: `Bearer ${this.options.apiKey}`,
        ...(raw ? { 'Content-Type': raw.contentType } : body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...extraHeaders,
      },
      body: raw ? raw.body : body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status >= 400) {
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep status only */
      }
      throw errorFromResponse(response.status, parsed, response.headers.get('retry-after'));
    }
    const value = (response.status === 204 || response.status === 302 ? null : await response.json()) as T;
    return { value, response };
  }

  /**
   * Submits a job. Pass an `idempotencyKey` (e.g. a UUID you keep) to make retries safe:
   * resubmitting with the same key and body returns the same job, charged once.
   */
  async submit<E extends SubmittableEndpoint>(
    family: Family,
    endpoint: E,
    body: BodyFor<E>,
    opts: { idempotencyKey?: string } = {},
  ): Promise<JobSubmissionResponse> {
    const headers: Record<string, string> = opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : {};
    return (await this.request<JobSubmissionResponse>('POST', `/api/v1/${family}/${endpoint}`, body, 'follow', headers)).value;
  }

  async preview<E extends SubmittableEndpoint>(endpoint: E, body: BodyFor<E>): Promise<PreviewResponse> {
    return (await this.request<PreviewResponse>('POST', `/api/v1/analyze/${endpoint}/preview`, body)).value;
  }

  async getJob(jobId: string): Promise<JobStatusResponse> {
    return (await this.request<JobStatusResponse>('GET', `/api/v1/jobs/${encodeURIComponent(jobId)}`)).value;
  }

  async listJobs(opts: ListOptions = {}): Promise<JobListResponse> {
    const q = new URLSearchParams();
    const join = (v: string | string[]) => (Array.isArray(v) ? v.join(',') : v);
    if (opts.status !== undefined) q.set('status', join(opts.status));
    if (opts.endpoint_id !== undefined) q.set('endpoint_id', join(opts.endpoint_id));
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    const qs = q.toString();
    return (await this.request<JobListResponse>('GET', `/api/v1/jobs${qs ? `?${qs}` : ''}`)).value;
  }

  /**
   * Cancels a pending or processing job: it fails with CANCELED, uncharged. Idempotent; a job
   * that already ended otherwise throws JobNotCancelableError (its status in `details`).
   */
  async cancel(jobId: string): Promise<JobStatusResponse> {
    return (await this.request<JobStatusResponse>('POST', `/api/v1/jobs/${encodeURIComponent(jobId)}/cancel`)).value;
  }

  /**
   * The job's events as they happen (GET /jobs/{id}/events, Server-Sent Events): its current
   * state first, then each status and progress change; ends after the terminal event. Pass the
   * last `id` seen as `lastEventId` to resume after a lost connection.
   */
  async *events(jobId: string, opts: EventsOptions = {}): AsyncGenerator<JobEvent> {
    const response = await this.fetchImpl(`${this.baseUrl}/api/v1/jobs/${encodeURIComponent(jobId)}/events`, {
      headers: {
        Authorization: `Bearer ${this.options.apiKey}`,
        Accept: 'text/event-stream',
        ...(opts.lastEventId === undefined ? {} : { 'Last-Event-ID': String(opts.lastEventId) }),
      },
      signal: opts.signal,
    });
    if (response.status >= 400) {
      const body = await response.json().catch(() => null);
      throw errorFromResponse(response.status, body, response.headers.get('retry-after'));
    }
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEventBlock(block);
        if (event) yield event;
      }
    }
  }

  /** Polls with back-off until the job is completed or failed. */
  async wait(jobId: string, opts: WaitOptions = {}): Promise<JobStatusResponse> {
    const started = Date.now();
    let delay = opts.initialDelayMs ?? 2000;
    const maxDelay = opts.maxDelayMs ?? 60_000;
    for (;;) {
      const job = await this.getJob(jobId);
      opts.onPoll?.(job);
      if (job.status === 'completed') return job;
      if (job.status === 'failed') {
        if (opts.throwOnFailure ?? true) {
          throw new JobFailedError(200, job.error_code ?? 'FAILED', job.error_message ?? `job ${jobId} failed`);
        }
        return job;
      }
      if (opts.timeoutMs !== undefined && Date.now() - started + delay > opts.timeoutMs) {
        throw new WaitTimeoutError(0, 'WAIT_TIMEOUT', `job ${jobId} still ${job.status} after ${Date.now() - started} ms`);
      }
      await sleep(delay, opts.signal);
      delay = Math.min(maxDelay, Math.ceil(delay * 1.5));
    }
  }

  /**
   * Uploads a polygon file: a GeoJSON FeatureCollection, a KML document or a zipped
   * Shapefile. Answers at once with status `processing`; see waitForPolygonUpload.
   */
  async uploadPolygons(file: Uint8Array | string, format: PolygonUploadFormat): Promise<PolygonUploadAccepted> {
    const raw = { body: file, contentType: POLYGON_UPLOAD_CONTENT_TYPES[format] };
    return (await this.request<PolygonUploadAccepted>('POST', '/api/v1/polygons', undefined, 'follow', {}, raw)).value;
  }

  async getPolygonUpload(polygonId: string): Promise<PolygonUpload> {
    return (await this.request<PolygonUpload>('GET', `/api/v1/polygons/${encodeURIComponent(polygonId)}`)).value;
  }

  async listPolygonUploads(): Promise<PolygonUploadList> {
    return (await this.request<PolygonUploadList>('GET', '/api/v1/polygons')).value;
  }

  async deletePolygonUpload(polygonId: string): Promise<void> {
    await this.request<null>('DELETE', `/api/v1/polygons/${encodeURIComponent(polygonId)}`);
  }

  /** Polls until the upload is ready (returned) or failed (PolygonUploadFailedError with the reason). */
  async waitForPolygonUpload(polygonId: string, opts: Pick<WaitOptions, 'initialDelayMs' | 'maxDelayMs' | 'timeoutMs' | 'signal'> = {}): Promise<PolygonUpload> {
    return this.waitForUpload(`polygon upload ${polygonId}`, () => this.getPolygonUpload(polygonId), opts);
  }

  /**
   * Uploads an image to analyse by tif_id: a GeoTIFF of calibrated σ0 ('geotiff') or a zipped
   * Sentinel-1 GRD SAFE product ('safe'). Answers at once with status `processing`; see waitForTifUpload.
   */
  async uploadTif(file: Uint8Array, kind: TifUploadKind): Promise<TifUploadAccepted> {
    const raw = { body: file, contentType: TIF_UPLOAD_CONTENT_TYPES[kind] };
    return (await this.request<TifUploadAccepted>('POST', '/api/v1/tifs', undefined, 'follow', {}, raw)).value;
  }

  async getTifUpload(tifId: string): Promise<TifUpload> {
    return (await this.request<TifUpload>('GET', `/api/v1/tifs/${encodeURIComponent(tifId)}`)).value;
  }

  async listTifUploads(): Promise<TifUploadList> {
    return (await this.request<TifUploadList>('GET', '/api/v1/tifs')).value;
  }

  async deleteTifUpload(tifId: string): Promise<void> {
    await this.request<null>('DELETE', `/api/v1/tifs/${encodeURIComponent(tifId)}`);
  }

  /** Polls until the image upload is ready (returned) or failed (PolygonUploadFailedError with the reason). */
  async waitForTifUpload(tifId: string, opts: Pick<WaitOptions, 'initialDelayMs' | 'maxDelayMs' | 'timeoutMs' | 'signal'> = {}): Promise<TifUpload> {
    return this.waitForUpload(`image upload ${tifId}`, () => this.getTifUpload(tifId), opts);
  }

  /** Uploads AIS positions (CSV text: mmsi,timestamp,lat,lon[,sog,cog,heading,length]) for a ship job's ais_id. */
  async uploadAis(csv: string | Uint8Array): Promise<AisUploadAccepted> {
    const raw = { body: typeof csv === 'string' ? new TextEncoder().encode(csv) : csv, contentType: 'text/csv' };
    return (await this.request<AisUploadAccepted>('POST', '/api/v1/ais', undefined, 'follow', {}, raw)).value;
  }

  async getAisUpload(aisId: string): Promise<AisUpload> {
    return (await this.request<AisUpload>('GET', `/api/v1/ais/${encodeURIComponent(aisId)}`)).value;
  }

  async listAisUploads(): Promise<AisUploadList> {
    return (await this.request<AisUploadList>('GET', '/api/v1/ais')).value;
  }

  async deleteAisUpload(aisId: string): Promise<void> {
    await this.request<null>('DELETE', `/api/v1/ais/${encodeURIComponent(aisId)}`);
  }

  /** Polls until the AIS upload is ready (returned) or failed (PolygonUploadFailedError with the reason). */
  async waitForAisUpload(aisId: string, opts: Pick<WaitOptions, 'initialDelayMs' | 'maxDelayMs' | 'timeoutMs' | 'signal'> = {}): Promise<AisUpload> {
    return this.waitForUpload(`AIS upload ${aisId}`, () => this.getAisUpload(aisId), opts);
  }

  private async waitForUpload<U extends { status: string; error: string | null }>(
    what: string,
    get: () => Promise<U>,
    opts: Pick<WaitOptions, 'initialDelayMs' | 'maxDelayMs' | 'timeoutMs' | 'signal'>,
  ): Promise<U> {
    const started = Date.now();
    let delay = opts.initialDelayMs ?? 250;
    const maxDelay = opts.maxDelayMs ?? 5000;
    for (;;) {
      const upload = await get();
      if (upload.status === 'ready') return upload;
      if (upload.status === 'failed') throw new PolygonUploadFailedError(200, 'UPLOAD_FAILED', upload.error ?? `${what} failed`);
      if (opts.timeoutMs !== undefined && Date.now() - started + delay > opts.timeoutMs) {
        throw new WaitTimeoutError(0, 'WAIT_TIMEOUT', `${what} still processing after ${Date.now() - started} ms`);
      }
      await sleep(delay, opts.signal);
      delay = Math.min(maxDelay, Math.ceil(delay * 1.5));
    }
  }

  /** The signed download URL the API redirects to (valid for a limited time). */
  async resultUrl(jobId: string, format: 'geojson' | 'zip' = 'geojson'): Promise<string> {
    return this.redirectOf(`/api/v1/jobs/${encodeURIComponent(jobId)}/result.${format}`);
  }

  /**
   * The signed URL of a job's quicklook PNG (what was analysed, detections drawn; a time
   * series' deviation map) or of its overlay PNG (Web Mercator, placed by the job's
   * `overlay.bounds`). NotFoundError when the job has none.
   */
  async pictureUrl(jobId: string, picture: 'quicklook' | 'overlay'): Promise<string> {
    return this.redirectOf(`/api/v1/jobs/${encodeURIComponent(jobId)}/${picture === 'quicklook' ? 'quicklook.png' : 'overlay'}`);
  }

  /** Downloads the job's quicklook: the PNG's bytes. */
  async downloadQuicklook(jobId: string): Promise<Uint8Array> {
    return this.downloadBytes(await this.pictureUrl(jobId, 'quicklook'));
  }

  /** Downloads the job's overlay PNG; place it on a map by `overlay.bounds` of the job (getJob). */
  async downloadOverlay(jobId: string): Promise<Uint8Array> {
    return this.downloadBytes(await this.pictureUrl(jobId, 'overlay'));
  }

  /**
   * The signed URL of a timeseries job's map layer: GeoJSON of the result's cells (same order
   * and ids) with only `deviation`, coordinates rounded to 6 decimals. NotFoundError when the
   * job has none.
   */
  async mapLayerUrl(jobId: string): Promise<string> {
    return this.redirectOf(`/api/v1/jobs/${encodeURIComponent(jobId)}/map-layer`);
  }

  /** Downloads a timeseries job's map layer, parsed: a FeatureCollection of the cells, each with `id` and `properties.deviation`. */
  async downloadMapLayer(jobId: string): Promise<{
    type: 'FeatureCollection';
    bbox?: number[];
    features: Array<{ type: 'Feature'; id?: number | string; geometry: { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown[] }; properties: { deviation: number | null } }>;
  }> {
    return JSON.parse(new TextDecoder().decode(await this.downloadBytes(await this.mapLayerUrl(jobId))));
  }

  private async redirectOf(path: string): Promise<string> {
    const { response } = await this.request<null>('GET', path, undefined, 'manual');
    const location = response.headers.get('location');
    if (!location) throw errorFromResponse(response.status, null, null);
    return new URL(location, `${this.baseUrl}/`).toString();
  }

  private async downloadBytes(url: string): Promise<Uint8Array> {
    const response = await this.fetchImpl(url);
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      throw errorFromResponse(response.status, body, response.headers.get('retry-after'));
    }
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Downloads and parses the GeoJSON result, following the redirect. */
  async downloadResult(jobId: string): Promise<{ type: 'FeatureCollection'; bbox?: number[]; features: unknown[] }> {
    const url = await this.resultUrl(jobId, 'geojson');
    const response = await this.fetchImpl(url);
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      throw errorFromResponse(response.status, body, response.headers.get('retry-after'));
    }
    return (await response.json()) as { type: 'FeatureCollection'; bbox?: number[]; features: unknown[] };
  }

  /** Downloads the zip result of an idlefarm job (result.zip), following the redirect: the archive's bytes. */
  async downloadArchive(jobId: string): Promise<Uint8Array> {
    return this.downloadBytes(await this.resultUrl(jobId, 'zip'));
  }
}

/** One text/event-stream block → an event; comments (heartbeats) and blocks without data → null. */
function parseEventBlock(block: string): JobEvent | null {
  let id: number | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = Number(value);
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (id === null || data.length === 0 || (event !== 'status' && event !== 'progress')) return null;
  return { id, event, data: JSON.parse(data.join('\n')) as JobEvent['data'] };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}
