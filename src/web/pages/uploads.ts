/**
 * Uploads: polygon files (GeoJSON, KML, zipped Shapefile) and images (σ0 GeoTIFF, zipped
 * SAFE) with their status; upload and delete. Refreshes while any upload is processing.
 */
import { api, ApiError } from '../api.ts';
import { append, button, clear, el, field, message } from '../dom.ts';
import { fmtBytes, fmtNumber, fmtTime } from '../format.ts';
import type { Cleanup } from '../router.ts';
import { statusBadge } from './jobs.ts';

const POLL_MS = 2000;

/** The Content-Type the API wants, from the file's name (browsers often send none for these). */
export function polygonContentType(name: string): string | null {
  const n = name.toLowerCase();
  if (n.endsWith('.geojson') || n.endsWith('.json')) return 'application/geo+json';
  if (n.endsWith('.kml')) return 'application/vnd.google-earth.kml+xml';
  if (n.endsWith('.zip')) return 'application/zip';
  return null;
}
export function tifContentType(name: string): string | null {
  const n = name.toLowerCase();
  if (n.endsWith('.tif') || n.endsWith('.tiff')) return 'image/tiff';
  if (n.endsWith('.zip')) return 'application/zip';
  return null;
}

export async function uploadsPage(main: HTMLElement): Promise<Cleanup> {
  const status = el('div', { class: 'status', 'aria-live': 'polite' });
  const polygonFile = el('input', { type: 'file', name: 'polygon_file', accept: '.geojson,.json,.kml,.zip' });
  const tifFile = el('input', { type: 'file', name: 'tif_file', accept: '.tif,.tiff,.zip' });
  const polygonForm = el('form', { class: 'upload-form', 'aria-label': 'Upload a polygon file' }, field('Polygon file (GeoJSON, KML, zipped Shapefile)', polygonFile), el('button', { type: 'submit' }, 'Upload polygons'));
  const tifForm = el('form', { class: 'upload-form', 'aria-label': 'Upload an image' }, field('Image (σ0 GeoTIFF or zipped GRD SAFE)', tifFile), el('button', { type: 'submit' }, 'Upload image'));
  const polygonTable = el('div', { class: 'table-wrap' });
  const tifTable = el('div', { class: 'table-wrap' });
  append(
    main,
    el('h1', {}, 'Uploads'),
    status,
    el('section', { 'aria-labelledby': 'polygons-title' }, el('h2', { id: 'polygons-title' }, 'Polygons'), polygonForm, polygonTable),
    el('section', { 'aria-labelledby': 'tifs-title' }, el('h2', { id: 'tifs-title' }, 'Images'), tifForm, tifTable),
  );

  const submit = (form: HTMLFormElement, input: HTMLInputElement, type: (n: string) => string | null, send: (f: File, t: string) => Promise<unknown>) =>
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clear(status);
      const file = input.files?.[0];
      if (!file) return append(status, message('error', 'Choose a file first.'));
      const t = type(file.name);
      if (!t) return append(status, message('error', 'Unknown file type: use the extensions listed.'));
      try {
        await send(file, t);
        form.reset();
        // Said once the list shows the upload, so what the message announces is on the page.
        await refresh();
        append(status, message('info', 'Uploaded; validating.'));
      } catch (err) {
        append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The upload failed.'));
      }
    });
  submit(polygonForm, polygonFile, polygonContentType, api.uploadPolygon);
  submit(tifForm, tifFile, tifContentType, api.uploadTif);

  let timer: number | undefined;
  let stopped = false;
  /** Only the newest refresh draws: an older one answering later would show a list without the newest upload. */
  let latest = 0;
  async function refresh(): Promise<void> {
    window.clearTimeout(timer);
    const mine = ++latest;
    try {
      const [{ polygons }, { tifs }] = await Promise.all([api.polygons(), api.tifs()]);
      if (stopped || mine !== latest) return;
      clear(polygonTable);
      clear(tifTable);
      append(
        polygonTable,
        table(
          'Polygon uploads',
          ['Uploaded (UTC)', 'Status', 'Format', 'Size', 'Features', 'Area km²', 'Error', 'Id', ''],
          polygons.map((p) => [
            fmtTime(p.created_at),
            statusBadge(p.status),
            p.format,
            fmtBytes(p.size_bytes),
            fmtNumber(p.feature_count, 0),
            fmtNumber(p.area_sqkm, 3),
            p.error ?? '',
            el('code', {}, p.polygon_id),
            button('Delete', () => void remove(() => api.deletePolygon(p.polygon_id)), { 'aria-label': `Delete polygon upload ${p.polygon_id}` }),
          ]),
        ),
      );
      append(
        tifTable,
        table(
          'Image uploads',
          ['Uploaded (UTC)', 'Status', 'Kind', 'Size', 'Polarisations', 'Pixels', 'Error', 'Id', ''],
          tifs.map((t) => [
            fmtTime(t.created_at),
            statusBadge(t.status),
            t.kind,
            fmtBytes(t.size_bytes),
            t.polarisations?.join(', ') ?? '—',
            t.width === null ? '—' : `${t.width} × ${t.height}`,
            t.error ?? '',
            el('code', {}, t.tif_id),
            button('Delete', () => void remove(() => api.deleteTif(t.tif_id)), { 'aria-label': `Delete image upload ${t.tif_id}` }),
          ]),
        ),
      );
      if ([...polygons, ...tifs].some((u) => u.status === 'processing')) timer = window.setTimeout(() => void refresh(), POLL_MS);
    } catch (err) {
      if (stopped || mine !== latest) return;
      append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The service did not answer.'));
    }
  }
  async function remove(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
      await refresh();
    } catch (err) {
      append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'Delete failed.'));
    }
  }
  await refresh();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
  };
}

function table(caption: string, heads: string[], rows: Array<Array<Node | string>>): HTMLElement {
  if (!rows.length) return el('p', {}, 'None yet.');
  const body = el('tbody');
  for (const r of rows) body.appendChild(el('tr', {}, ...r.map((c) => el('td', {}, c))));
  return el('table', {}, el('caption', { class: 'visually-hidden' }, caption), el('thead', {}, el('tr', {}, ...heads.map((h) => el('th', { scope: 'col' }, h || 'Actions')))), body);
}
