/**
 * New job: an endpoint and family, an AOI (drawn on the map, pasted WKT, an uploaded polygon,
 * a scene found by a search on the map, or an uploaded image), the dates; a live preview
 * (POST …/preview: area, coverage, credits, warnings) as the form changes; then submit.
 */
import { api, ApiError } from '../api.ts';
import { append, button, clear, definitions, el, field, message } from '../dom.ts';
import { fmtNumber, fmtTime } from '../format.ts';
import { MapView } from '../map/mapView.ts';
import type { Cleanup } from '../router.ts';
import { ENDPOINT_IDS, type EndpointId, type Family, type PolygonUpload, type Scene, type SubmissionBody, type TifUpload, type WebConfig } from '../types.ts';
import { areaToWkt, bboxOf, parseArea } from '../wkt.ts';

type AoiSource = 'draw' | 'wkt' | 'upload' | 'scene' | 'tif';
const SCENE_ENDPOINTS: EndpointId[] = ['ship', 'oilslick'];
const AOI_LABELS: Record<AoiSource, string> = {
  draw: 'Draw on the map',
  wkt: 'Paste WKT',
  upload: 'Uploaded polygon',
  scene: 'A scene (scene_id)',
  tif: 'Uploaded image (tif_id)',
};

function select(name: string, options: Array<[string, string]>, value?: string): HTMLSelectElement {
  const s = el('select', { name });
  for (const [v, label] of options) s.appendChild(el('option', { value: v, selected: v === value }, label));
  return s;
}

export async function newJobPage(main: HTMLElement, config: Promise<WebConfig>): Promise<Cleanup> {
  MapView.preload();
  const endpoint = select('endpoint', ENDPOINT_IDS.map((e) => [e, e]), 'ship');
  const family = select('family', [['detect', 'detect (GRD imagery)'], ['analyze', 'analyze (RTC imagery for change and time series)']], 'detect');
  const aoiSource = select('aoi_source', [], 'draw');
  const wkt = el('textarea', { name: 'polygon', rows: 4, spellcheck: 'false', placeholder: 'POLYGON ((lon lat, …))' });
  const polygonId = select('polygon_id', []);
  const sceneId = el('input', { type: 'text', name: 'scene_id', spellcheck: 'false', autocomplete: 'off' });
  const tifId = select('tif_id', []);
  const date = el('input', { type: 'date', name: 'date' });
  const dateDirection = select('date_direction', [['nearest', 'nearest'], ['before', 'before'], ['after', 'after']], 'nearest');
  const dateStart = el('input', { type: 'date', name: 'date_start' });
  const dateEnd = el('input', { type: 'date', name: 'date_end' });
  const orbit = select('orbit_direction', [['', 'any'], ['ascending', 'ascending'], ['descending', 'descending']], '');

  const drawHelp = el('p', { class: 'hint', id: 'draw-help' }, 'Click on the map to add corners, then Finish. The polygon is written as WKT below.');
  let drawing = false;
  let vertices: Array<[number, number]> = [];
  const startDraw = button('Start drawing', () => {
    drawing = true;
    vertices = [];
    void view.setDraft(vertices);
    view.map.doubleClickZoom.disable();
    startDraw.disabled = true;
    finishDraw.disabled = false;
  });
  const finishDraw = button('Finish polygon', () => finish());
  finishDraw.disabled = true;
  const clearDraw = button('Clear', () => {
    drawing = false;
    vertices = [];
    wkt.value = '';
    void view.setDraft([]);
    void view.setAoi(null);
    startDraw.disabled = false;
    finishDraw.disabled = true;
    schedulePreview();
  });
  const sceneResults = el('div', { class: 'scene-results', 'aria-live': 'polite' });
  const searchScenes = button('Search scenes on the map', () => void sceneSearch());

  const rows = {
    aoi: field('Area of interest from', aoiSource),
    draw: el('div', { class: 'draw-tools' }, drawHelp, startDraw, finishDraw, clearDraw),
    wkt: field('Polygon (WKT, EPSG:4326, lon lat)', wkt),
    upload: field('Uploaded polygon (ready uploads)', polygonId),
    scene: el('div', {}, field('Scene id', sceneId, 'A full GRD scene. Search needs a polygon (draw or paste one) and a date.'), searchScenes, sceneResults),
    tif: field('Uploaded image (ready uploads)', tifId),
    date: el('div', { class: 'row' }, field('Date', date), field('Date direction', dateDirection)),
    period: el('div', { class: 'row' }, field('From', dateStart), field('To', dateEnd)),
    orbit: field('Orbit direction', orbit),
  };
  const preview = el('section', { class: 'preview card', 'aria-labelledby': 'preview-title', 'aria-live': 'polite' }, el('h2', { id: 'preview-title' }, 'Preview'), el('p', {}, 'Fill in the form to see the area, coverage and credits.'));
  const status = el('div', { class: 'status' });
  const form = el(
    'form',
    { class: 'new-job', 'aria-labelledby': 'new-title' },
    el('div', { class: 'row' }, field('Endpoint', endpoint), field('Family', family)),
    rows.aoi,
    rows.draw,
    rows.wkt,
    rows.upload,
    rows.scene,
    rows.tif,
    rows.date,
    rows.period,
    rows.orbit,
    el('button', { type: 'submit', class: 'primary' }, 'Submit job'),
    status,
  );
  const mapBox = el('div', { id: 'new-map' });
  append(main, el('h1', { id: 'new-title' }, 'New job'), el('div', { class: 'job-layout' }, el('div', { class: 'col' }, form), el('div', { class: 'col wide' }, mapBox, preview)));
  const { basemap_url } = await config;
  const view = MapView.open(mapBox, { basemapUrl: basemap_url, label: 'Map: draw the area of interest, scene footprints' });

  view.on('click', (at) => {
    if (!drawing) return;
    vertices.push([Number(at.lng.toFixed(6)), Number(at.lat.toFixed(6))]);
    void view.setDraft(vertices);
  });
  view.on('dblclick', () => {
    if (drawing && vertices.length >= 3) finish();
  });
  function finish(): void {
    if (vertices.length < 3) {
      append(status, message('error', 'A polygon needs at least three corners.'));
      return;
    }
    drawing = false;
    view.map.doubleClickZoom.enable();
    wkt.value = areaToWkt({ type: 'Polygon', coordinates: [[...vertices, vertices[0]!]] });
    void view.setDraft([]);
    void view.setAoi(parseArea(wkt.value));
    startDraw.disabled = false;
    finishDraw.disabled = true;
    schedulePreview();
  }

  // Uploads to choose from.
  let polygons: PolygonUpload[] = [];
  let tifs: TifUpload[] = [];
  try {
    [polygons, tifs] = await Promise.all([api.polygons().then((r) => r.polygons), api.tifs().then((r) => r.tifs)]);
  } catch {
    // A key without upload access: those choices stay empty.
  }
  for (const p of polygons.filter((p) => p.status === 'ready')) {
    polygonId.appendChild(el('option', { value: p.polygon_id }, `${fmtTime(p.created_at)} · ${p.format} · ${p.feature_count} features · ${fmtNumber(p.area_sqkm, 2)} km²`));
  }
  for (const t of tifs.filter((t) => t.status === 'ready')) {
    tifId.appendChild(el('option', { value: t.tif_id }, `${fmtTime(t.created_at)} · ${t.kind} · ${t.width}×${t.height} px`));
  }

  function sources(ep: EndpointId): AoiSource[] {
    if (ep === 'idlefarm') return ['upload'];
    return SCENE_ENDPOINTS.includes(ep) ? ['draw', 'wkt', 'upload', 'scene', 'tif'] : ['draw', 'wkt', 'upload'];
  }
  function layout(): void {
    const ep = endpoint.value as EndpointId;
    const allowed = sources(ep);
    const current = (allowed.includes(aoiSource.value as AoiSource) ? aoiSource.value : allowed[0]) as AoiSource;
    clear(aoiSource);
    for (const s of allowed) aoiSource.appendChild(el('option', { value: s, selected: s === current }, AOI_LABELS[s]));
    const src = current;
    const sceneEp = SCENE_ENDPOINTS.includes(ep);
    rows.draw.hidden = src !== 'draw';
    rows.wkt.hidden = !(src === 'draw' || src === 'wkt' || src === 'tif' || src === 'scene');
    rows.upload.hidden = src !== 'upload';
    rows.scene.hidden = src !== 'scene';
    rows.tif.hidden = src !== 'tif';
    rows.date.hidden = !sceneEp || src === 'tif';
    rows.period.hidden = sceneEp;
    (rows.wkt.querySelector('label') as HTMLLabelElement).textContent =
      src === 'tif' ? 'Polygon within the image (optional WKT)' : src === 'scene' ? 'Polygon to search scenes with (WKT, not sent)' : 'Polygon (WKT, EPSG:4326, lon lat)';
    (rows.date.querySelector('label') as HTMLLabelElement).textContent = src === 'scene' ? 'Date to search scenes around (not sent)' : 'Date';
  }

  /** The request body, or a reason it cannot be built yet. */
  function body(): SubmissionBody | string {
    const ep = endpoint.value as EndpointId;
    const src = aoiSource.value as AoiSource;
    const b: SubmissionBody = { satellite_id: 'sentinel-1' };
    if (src === 'draw' || src === 'wkt') {
      if (!wkt.value.trim()) return 'Draw or paste a polygon.';
      b.polygon = wkt.value.trim();
    } else if (src === 'upload') {
      if (!polygonId.value) return 'Upload a polygon file first (Uploads page).';
      b.polygon_id = polygonId.value;
    } else if (src === 'scene') {
      if (!sceneId.value.trim()) return 'Give a scene id, or search scenes on the map.';
      b.scene_id = sceneId.value.trim();
    } else if (src === 'tif') {
      if (!tifId.value) return 'Upload an image first (Uploads page).';
      b.tif_id = tifId.value;
      if (wkt.value.trim()) b.polygon = wkt.value.trim();
    }
    if (SCENE_ENDPOINTS.includes(ep)) {
      if (src !== 'scene' && src !== 'tif') {
        if (!date.value) return 'Pick a date.';
        b.date = date.value;
        if (dateDirection.value !== 'nearest') b.date_direction = dateDirection.value;
      }
    } else {
      if (!dateStart.value || !dateEnd.value) return 'Pick the period (from, to).';
      b.date_start = dateStart.value;
      b.date_end = dateEnd.value;
    }
    if (orbit.value && src !== 'scene' && src !== 'tif') b.orbit_direction = orbit.value;
    return b;
  }

  let previewTimer: number | undefined;
  let previewSeq = 0;
  function schedulePreview(): void {
    window.clearTimeout(previewTimer);
    previewTimer = window.setTimeout(() => void runPreview(), 400);
  }
  async function runPreview(): Promise<void> {
    const seq = ++previewSeq;
    const b = body();
    clear(preview);
    append(preview, el('h2', { id: 'preview-title' }, 'Preview'));
    if (typeof b === 'string') {
      append(preview, el('p', {}, b));
      return;
    }
    try {
      const p = await api.preview(endpoint.value, b);
      if (seq !== previewSeq) return;
      append(
        preview,
        definitions(
          [
            ['Area', p.area_sqkm === null ? '— (known when the job runs)' : `${fmtNumber(p.area_sqkm, 3)} km²`],
            ['Coverage', p.coverage ? `${fmtNumber(p.coverage.ratio * 100, 0)} % of ${fmtNumber(p.coverage.requested_area_sqkm, 3)} km² (${p.coverage.method})` : '—'],
            ['Credits estimated', p.credits.estimated === null ? '—' : fmtNumber(p.credits.estimated, 4)],
            ['Balance', fmtNumber(p.credits.balance, 4)],
            ['Enough credits', p.credits.sufficient === null ? '—' : p.credits.sufficient ? 'yes' : 'no'],
          ],
          { 'data-testid': 'preview-fields' },
        ),
      );
      if (p.warnings.length) append(preview, el('ul', { class: 'warnings' }, ...p.warnings.map((w) => el('li', {}, el('strong', {}, w.code), ` ${w.message}`))));
      const aoi = b.polygon ? parseArea(b.polygon) : null;
      const cov = p.coverage?.polygon ? parseArea(p.coverage.polygon) : null;
      await view.setAoi(aoi);
      await view.setCoverage(cov);
      if (aoi || cov) view.fitTo(bboxOf([aoi, cov]));
    } catch (err) {
      if (seq !== previewSeq) return;
      append(preview, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The preview failed.'));
    }
  }

  async function sceneSearch(): Promise<void> {
    clear(sceneResults);
    const aoi = wkt.value.trim();
    if (!aoi || !parseArea(aoi)) {
      append(sceneResults, message('error', 'Draw or paste a polygon to search scenes over.'));
      return;
    }
    const q = new URLSearchParams({ polygon: aoi, product_type: family.value === 'detect' ? 'GRD' : 'GRD,RTC', limit: '50' });
    if (date.value) {
      const d = Date.parse(`${date.value}T00:00:00Z`);
      q.set('date_start', new Date(d - 12 * 86400e3).toISOString().slice(0, 10));
      q.set('date_end', new Date(d + 12 * 86400e3).toISOString().slice(0, 10));
    }
    let scenes: Scene[];
    try {
      scenes = (await api.scenes(q)).scenes;
    } catch (err) {
      append(sceneResults, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The search failed.'));
      return;
    }
    const footprints: GeoJSON.Feature[] = [];
    for (const s of scenes) {
      const g = parseArea(s.footprint);
      if (g) footprints.push({ type: 'Feature', properties: {}, geometry: g });
    }
    await view.setFootprints({ type: 'FeatureCollection', features: footprints });
    view.fitTo(bboxOf(footprints.map((f) => f.geometry)));
    if (!scenes.length) {
      append(sceneResults, el('p', {}, 'No scene over this polygon in ±12 days of the date.'));
      return;
    }
    const body = el('tbody');
    for (const s of scenes) {
      const use = button('Use', () => {
        sceneId.value = s.scene_id;
        schedulePreview();
      }, { 'aria-label': `Use scene ${s.scene_id}` });
      body.appendChild(el('tr', {}, el('td', {}, fmtTime(s.start_time)), el('td', {}, s.product_type), el('td', {}, s.orbit_direction), el('td', { class: 'scene-id' }, s.scene_id), el('td', {}, use)));
    }
    append(
      sceneResults,
      el('table', {}, el('caption', {}, `${scenes.length} scenes`), el('thead', {}, el('tr', {}, ...['Start (UTC)', 'Type', 'Orbit', 'Scene id', ''].map((h) => el('th', { scope: 'col' }, h)))), body),
    );
  }

  form.addEventListener('input', () => schedulePreview());
  form.addEventListener('change', (e) => {
    if (e.target === endpoint || e.target === aoiSource) layout();
    if (e.target === wkt) void view.setAoi(parseArea(wkt.value));
    schedulePreview();
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clear(status);
    const b = body();
    if (typeof b === 'string') {
      append(status, message('error', b));
      return;
    }
    try {
      const { job_id } = await api.submit(family.value as Family, endpoint.value, b);
      location.hash = `#/jobs/${encodeURIComponent(job_id)}`;
    } catch (err) {
      append(status, message('error', err instanceof ApiError ? `${err.code}: ${err.message}` : 'The submission failed.'));
    }
  });
  layout();
  return () => {
    window.clearTimeout(previewTimer);
    view.release();
  };
}
