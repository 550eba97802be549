/**
 * One job: its fields, warnings, coverage and scene selection; a map with the AOI, the
 * coverage polygon, the quicklook overlay (when the job view has one) and the result features
 * styled per endpoint; a feature's properties (and a time-series cell's chart) on click;
 * download buttons. Follows a running job by its event stream (polling when the stream cannot
 * be had), then draws the result — a time series from its map layer (the cells and their
 * deviation), the full result with every cell's chart fetched on the first click.
 */
import { api, ApiError } from '../api.ts';
import { append, button, clear, definitions, el, message } from '../dom.ts';
import { fmtNumber, fmtTime, fmtValue } from '../format.ts';
import { legend } from '../map/resultStyle.ts';
import { MapView } from '../map/mapView.ts';
import type { Cleanup } from '../router.ts';
import { followJob } from '../events.ts';
import type { Job, WebConfig } from '../types.ts';
import { bboxOf, parseArea } from '../wkt.ts';
import { inputSummary, statusBadge } from './jobs.ts';

const POLL_MS = 2000;
/** Streams cut short (or broken) in a row before the page polls instead. */
const MAX_STREAM_FAILURES = 3;

export async function jobPage(main: HTMLElement, params: Record<string, string>, config: Promise<WebConfig>): Promise<Cleanup> {
  const jobId = params.id!;
  MapView.preload();
  const title = el('h1', {}, 'Job');
  const status = el('div', { class: 'status', 'aria-live': 'polite' });
  const details = el('section', { class: 'details', 'aria-label': 'Job details' });
  const downloadBox = el('div', { class: 'downloads' });
  const mapBox = el('div', { id: 'job-map' });
  const legendBox = el('div', { class: 'legend' });
  const drawn = el('p', { class: 'drawn', 'aria-live': 'polite' });
  const props = el('aside', { class: 'properties', 'aria-labelledby': 'props-title' }, el('h2', { id: 'props-title' }, 'Feature'), el('p', {}, 'Click a feature on the map to see its properties.'));
  append(
    main,
    el('p', {}, el('a', { href: '#/jobs' }, '← Jobs')),
    title,
    status,
    el('div', { class: 'job-layout' }, el('div', { class: 'col' }, details, downloadBox), el('div', { class: 'col wide' }, mapBox, legendBox, drawn, props)),
  );
  let view: MapView | null = null;
  /** The map has been framed (once: later reads of a running job leave the view to the user). */
  let fitted = false;
  /** The job whose result is drawn (a time series' cell clicked on its map layer: the full result is this job's). */
  let drawnJob: Job | null = null;
  let drawnFromLayer = false;
  function openMap(frame: [number, number, number, number] | null, basemapUrl: string | null): MapView {
    const v = MapView.open(mapBox, { basemapUrl, label: 'Job map: AOI, coverage, quicklook and result features', bounds: frame });
    v.onFeatureClick((f) => (drawnFromLayer && drawnJob ? void showCell(props, f, drawnJob, status) : showProperties(props, f)));
    fitted = frame !== null;
    return v;
  }
  mapBox.addEventListener('map-idle', () => {
    const total = mapBox.dataset.resultFeatures;
    if (total !== undefined) drawn.textContent = `${mapBox.dataset.renderedFeatures ?? 0} of ${total} result features drawn in this view.`;
  });

  let stopped = false;
  let timer: number | undefined;
  let resultDrawn = false;
  let current: Job | null = null;
  let stream: AbortController | null = null;
  let streamFailures = 0;

  /**
   * Live status of a running job (`data-live` on the details says how): its event stream, each
   * event updating the fields in place; when the stream ends (after the terminal event, or cut
   * short) the job view is read again. An API error opening the stream (429
   * TOO_MANY_STREAMS, …) or repeated breaks: polling every POLL_MS instead.
   */
  function follow(): void {
    if (streamFailures >= MAX_STREAM_FAILURES || typeof TextDecoderStream === 'undefined') {
      details.dataset.live = 'polling';
      timer = window.setTimeout(() => void load(), POLL_MS);
      return;
    }
    details.dataset.live = 'events';
    const ctrl = (stream = new AbortController());
    followJob(
      jobId,
      (e) => {
        if (stopped || !current || e.job_id !== current.job_id) return;
        current = { ...current, status: e.status, progress: e.progress };
        renderDetails(details, current);
      },
      ctrl.signal,
    )
      .then(
        (terminal) => void (streamFailures = terminal ? 0 : streamFailures + 1),
        (err: unknown) => void (streamFailures = err instanceof ApiError ? MAX_STREAM_FAILURES : streamFailures + 1),
      )
      .finally(() => {
        if (stopped || stream !== ctrl) return;
        stream = null;
        void load();
      });
  }

  async function load(): Promise<void> {
    try {
      const job = await api.job(jobId);
      performance.mark('sarwatch:job-view');
      if (stopped) return;
      const wantResult = job.status === 'completed' && !resultDrawn;
      // The result and the overlay start downloading now, while the fields and the map are set up.
      const downloads = Promise.all([
        wantResult ? fetchMapData(job) : null,
        wantResult && job.overlay ? api.download(job.overlay.path).then((png) => ({ png }), (err: unknown) => ({ err })) : null,
      ]);
      title.textContent = `${job.endpoint_id ?? 'Job'} job`;
      clear(status);
      current = job;
      renderDetails(details, job);

      const polygon = job.request_params?.polygon;
      const aoi = typeof polygon === 'string' ? parseArea(polygon) : null;
      const coverage = job.coverage?.polygon ? parseArea(job.coverage.polygon) : null;
      const overlayBox: GeoJSON.Geometry[] = job.overlay ? [{ type: 'MultiPoint', coordinates: [job.overlay.bounds.slice(0, 2), job.overlay.bounds.slice(2, 4)] }] : [];
      // The map is made as soon as it is known where it goes, so it is tiled and drawn once, at
      // its final view: framed by the AOI (and the overlay, which can reach beyond it) while the
      // result still downloads (making the map is a first visit's longest step); with no AOI
      // to go by, by the result once it is in.
      const framed = bboxOf([aoi, coverage, ...overlayBox]);
      if (!view) {
        const [early] = framed || !wantResult ? [null] : await downloads;
        const { basemap_url } = await config;
        if (stopped) return;
        view = openMap(framed ?? (early && 'fc' in early ? bboxOf(early.fc.features.map((f) => f.geometry)) : null), basemap_url);
      } else if (framed && !fitted) fitted = view.fitTo(framed);
      await view.setAoi(aoi);
      await view.setCoverage(coverage);
      if (stopped) return; // left meanwhile: the map may already serve another page
      if (wantResult) {
        const [result, overlay] = await downloads;
        if (stopped) return;
        resultDrawn = true;
        renderDownloads(downloadBox, job, status);
        if (result && 'fc' in result && job.endpoint_id) {
          if (!fitted) fitted = view.fitTo(bboxOf(result.fc.features.map((f) => f.geometry)));
          drawnJob = job;
          drawnFromLayer = result.layer;
          await view.setResult(job.endpoint_id, result.fc);
          performance.mark('sarwatch:result-set');
          clear(legendBox);
          append(legendBox, el('h2', {}, `Result: ${result.fc.features.length} feature${result.fc.features.length === 1 ? '' : 's'}`), el('ul', {}, ...legend(job.endpoint_id).map(([colour, label]) => el('li', {}, swatch(colour), label))));
        } else if (result && 'err' in result) {
          append(status, message('error', `Result not shown: ${result.err instanceof ApiError ? `${result.err.code}: ${result.err.message}` : 'download failed'}`));
        }
        // The overlay (its own pane, beneath the vectors) after the result: decoding it does not hold the features back.
        if (stopped) return;
        if (overlay && 'png' in overlay) await view.setOverlay({ png: overlay.png, bounds: job.overlay!.bounds });
        else if (overlay) append(status, message('error', `Quicklook overlay not shown: ${overlay.err instanceof ApiError ? overlay.err.message : 'download failed'}`));
      } else if (job.status === 'pending' || job.status === 'processing') {
        follow();
      } else if (job.status === 'failed') {
        clear(downloadBox);
      }
    } catch (err) {
      if (stopped) return;
      clear(status);
      append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The service did not answer; retrying.'));
      if (!(err instanceof ApiError && err.status === 404)) timer = window.setTimeout(() => void load(), POLL_MS * 3);
    }
  }
  await load();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
    stream?.abort();
    view?.release();
  };
}

/**
 * The last result and the last map layer downloaded, by job: a completed job's result does not
 * change, so returning to its page within the app draws it from here instead of downloading and
 * parsing it again. One of each only (a time series' result can be 9 MB). The result is kept
 * as its promise, so clicks before it is in share one download.
 */
let lastResult: { jobId: string; path: string; fc: Promise<GeoJSON.FeatureCollection> } | null = null;
let lastLayer: { jobId: string; path: string; fc: GeoJSON.FeatureCollection } | null = null;

/**
 * What the map draws of a completed job: a time series' map layer when the job has one (the
 * cells and their deviation; `layer` true), else its GeoJSON result (none for a ZIP result),
 * or why neither could be had. A layer that cannot be had falls back to the result.
 */
async function fetchMapData(job: Job): Promise<{ fc: GeoJSON.FeatureCollection; layer: boolean } | { err: unknown } | null> {
  if (!job.endpoint_id || !job.result_path || job.result_path.endsWith('.zip')) return null;
  const layerPath = job.map_layer_path;
  if (job.endpoint_id === 'timeseries' && layerPath) {
    if (lastLayer?.jobId === job.job_id && lastLayer.path === layerPath) {
      performance.mark('sarwatch:layer-kept');
      return { fc: lastLayer.fc, layer: true };
    }
    try {
      performance.mark('sarwatch:layer-requested');
      const fc = await api.downloadJson<GeoJSON.FeatureCollection>(layerPath);
      performance.mark('sarwatch:layer-parsed');
      lastLayer = { jobId: job.job_id, path: layerPath, fc };
      return { fc, layer: true };
    } catch {
      // No layer after all (a 404, a failed download): the full result draws the same cells.
    }
  }
  try {
    return { fc: await fetchResult(job, job.result_path), layer: false };
  } catch (err) {
    return { err };
  }
}

/** A completed job's GeoJSON result, downloaded once (kept: see lastResult). */
function fetchResult(job: Job, path: string): Promise<GeoJSON.FeatureCollection> {
  if (lastResult?.jobId === job.job_id && lastResult.path === path) {
    performance.mark('sarwatch:result-kept');
    return lastResult.fc;
  }
  // Marks for profiling (the dashboard bench reads them): requested, downloaded and parsed.
  performance.mark('sarwatch:result-requested');
  const fc = api.downloadJson<GeoJSON.FeatureCollection>(path).then((r) => {
    performance.mark('sarwatch:result-parsed');
    return r;
  });
  const kept = (lastResult = { jobId: job.job_id, path, fc });
  // A failed download is not kept: the next click tries again.
  fc.catch(() => {
    if (lastResult === kept) lastResult = null;
  });
  return fc;
}

/**
 * A cell clicked on a time series' map layer: its id and deviation at once, then — once the
 * full result is in (downloaded on the first click, kept after) — the cell's properties and
 * chart as the result has them (the same id; the layer keeps the result's order).
 */
async function showCell(panel: HTMLElement, cell: GeoJSON.Feature, job: Job, status: HTMLElement): Promise<void> {
  showProperties(panel, cell);
  const click = shown;
  const note = el('p', { class: 'loading', 'aria-live': 'polite' }, 'Loading the cell’s chart…');
  append(panel, note);
  try {
    const fc = await fetchResult(job, job.result_path!);
    if (click !== shown) return;
    const full = cell.id === undefined ? undefined : fc.features.find((f) => f.id === cell.id);
    if (full) showProperties(panel, full);
    else note.textContent = 'This cell is not in the result.';
  } catch (err) {
    if (click !== shown) return;
    note.remove();
    append(status, message('error', `Chart not shown: ${err instanceof ApiError ? `${err.code}: ${err.message}` : 'the result could not be downloaded'}`));
  }
}

function renderDownloads(downloads: HTMLElement, job: Job, status: HTMLElement): void {
  clear(downloads);
  if (job.result_path) {
    const zip = job.result_path.endsWith('.zip');
    append(downloads, button(zip ? 'Download result (ZIP)' : 'Download result (GeoJSON)', () => void save(job.result_path!, `${job.job_id}.${zip ? 'zip' : 'geojson'}`, status)));
  }
  if (job.quicklook_path) append(downloads, button('Download quicklook (PNG)', () => void save(job.quicklook_path!, `${job.job_id}-quicklook.png`, status)));
}

function renderDetails(box: HTMLElement, job: Job): void {
  clear(box);
  append(
    box,
    definitions(
      [
        ['Status', statusBadge(job.status, job.progress)],
        ['Job id', el('code', {}, job.job_id)],
        ['Endpoint', job.endpoint_id ?? '—'],
        ['Created', fmtTime(job.created_at)],
        ['Completed', fmtTime(job.completed_at)],
        ['Area analysed', job.area_sqkm === null ? '—' : `${fmtNumber(job.area_sqkm, 3)} km²`],
        ['Credits used', fmtNumber(job.credits_used ?? null, 4)],
        ['Input', inputSummary(job.request_params ?? null)],
      ],
      { 'data-testid': 'job-fields' },
    ),
  );
  if (job.error_code) append(box, message('error', `${job.error_code}: ${job.error_message ?? ''}`));
  append(box, el('h2', {}, 'Coverage'));
  append(
    box,
    job.coverage
      ? definitions([
          ['Method', job.coverage.method],
          ['Ratio', `${fmtNumber(job.coverage.ratio * 100, 0)} %`],
          ['Requested area', `${fmtNumber(job.coverage.requested_area_sqkm, 3)} km²`],
        ])
      : el('p', {}, job.status === 'completed' ? 'Not reported (scene input: the whole scene).' : 'Known when the job has run.'),
  );
  append(box, el('h2', {}, 'Scene selection'));
  append(
    box,
    job.scene_selection ? definitions([['First month', job.scene_selection.first_month ?? '—'], ['Last month', job.scene_selection.last_month ?? '—']]) : el('p', {}, '—'),
  );
  append(box, el('h2', {}, 'Warnings'));
  append(box, job.warnings.length ? el('ul', { class: 'warnings' }, ...job.warnings.map((w) => el('li', {}, el('strong', {}, w.code), ` ${w.message}`))) : el('p', {}, 'None.'));
  if (job.request_params) {
    // Untrusted (what the submitter typed): names and values become text nodes (dom.ts).
    append(box, el('h2', {}, 'Request parameters'));
    append(box, definitions(Object.entries(job.request_params).map(([k, v]) => [k, fmtValue(v, 200)]), { 'data-testid': 'request-params' }));
  }
}

/** A colour swatch as an inline SVG (no style attribute: the policy forbids inline styles). */
function swatch(colour: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '14');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  svg.classList.add('swatch');
  const rect = document.createElementNS(ns, 'rect');
  rect.setAttribute('width', '14');
  rect.setAttribute('height', '14');
  rect.setAttribute('fill', colour);
  rect.setAttribute('stroke', '#555');
  svg.appendChild(rect);
  return svg;
}

async function save(path: string, filename: string, status: HTMLElement): Promise<void> {
  try {
    const blob = await api.download(path);
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: filename });
    document.body.appendChild(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'Download failed.'));
  }
}

/** Clicks so far: a chart whose module arrives after the next click is not drawn. */
let shown = 0;

export function showProperties(panel: HTMLElement, f: GeoJSON.Feature): void {
  const click = ++shown;
  clear(panel);
  const props = (f.properties ?? {}) as Record<string, unknown>;
  append(panel, el('h2', { id: 'props-title', tabindex: '-1' }, `Feature ${fmtValue(f.id ?? '', 40)}`));
  const rows = Object.entries(props)
    .filter(([k]) => k !== 'chart')
    .map(([k, v]) => [k, fmtValue(v)] as [string, string]);
  append(panel, definitions(rows, { 'data-testid': 'feature-properties' }));
  (panel.querySelector('h2') as HTMLElement | null)?.focus();
  if (props.chart === undefined) return;
  // The chart library (uPlot) is loaded on the first chart asked for, not with the page.
  void import('../chart.ts').then(({ cellChart, renderChart }) => {
    const chart = cellChart(props.chart);
    if (!chart || click !== shown) return;
    const cps = Array.isArray(props.changePointDates) ? props.changePointDates.filter((d): d is string => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d)) : [];
    renderChart(panel, chart, cps, Math.max(260, Math.min(panel.clientWidth - 16, 640)));
  });
}
