/**
 * One MapLibre map with the dashboard's layers: an offline basemap (world-atlas land at
 * 1:50m as GeoJSON made at build time, drawn as vector layers, so it needs no network), an optional online raster basemap
 * (SARWATCH_BASEMAP_URL), then the AOI, the coverage, the quicklook overlay and a job's
 * result features styled per endpoint (map/resultStyle.ts).
 *
 * One map serves every page in turn (MapView.open … release): a new WebGL context, its
 * shaders and the land layer's tiling cost far more than the page's own data, so leaving a
 * page parks the map (sources emptied, page listeners removed) and the next page takes it.
 *
 * The host element carries what the map drew, for people and tests alike:
 * `data-result-features` (features in the result) and `data-rendered-features` (distinct
 * result features MapLibre reports as rendered on screen, counted at each idle), and
 * `data-view` (centre and zoom) so a click can be aimed at a known coordinate.
 */
import { Map as MapLibre, NavigationControl, ScaleControl, setWorkerUrl, type GeoJSONSource, type IControl, type LngLatBoundsLike, type MapGeoJSONFeature } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
// MapLibre's worker as a file of our own origin: the policy's worker-src stays 'self' (no blob: worker).
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
// Land as GeoJSON made at build time (vite.config.mjs): fetched and parsed by MapLibre's worker.
import landUrl from 'virtual:sarwatch-land';
import type { EndpointId } from '../types.ts';
import { RESULT_LAYERS, STYLE_KEYS, resultLayers } from './resultStyle.ts';

setWorkerUrl(workerUrl);

const EMPTY: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };

export interface MapViewOptions {
  basemapUrl: string | null;
  /** Accessible name of the map region. */
  label: string;
  /** The first view, [w, s, e, n]: given when known, the map renders there from its first frame. */
  bounds?: [number, number, number, number] | null;
}

/** A bbox with a margin, as the map is fitted to it. */
function padded([w, s, e, n]: [number, number, number, number]): [[number, number], [number, number]] {
  const pad = Math.max((e - w) * 0.05, (n - s) * 0.05, 0.002);
  return [[w - pad, s - pad], [e + pad, n + pad]];
}

export class MapView {
  readonly map: MapLibre;
  /** The page's element the map is shown in (it moves from page to page). */
  host: HTMLElement;
  private readonly container: HTMLElement;
  private readonly ready: Promise<void>;
  private resultById = new Map<number | string, GeoJSON.Feature>();
  /** The result the 'result' and 'result-points' sources hold (kept while the map is parked). */
  private resultData: GeoJSON.FeatureCollection | null = null;
  private clickHandlers: Array<(f: GeoJSON.Feature) => void> = [];
  private pageListeners: Array<[string, (e: any) => void]> = [];
  /** The current result has been reported all drawn (the sarwatch:all-features-drawn mark). */
  private allDrawn = false;
  private static parked: MapView | null = null;

  /** The map for a page: the parked one moved into `host` and framed on `opts.bounds`, else a new one. */
  static open(host: HTMLElement, opts: MapViewOptions): MapView {
    const view = MapView.parked;
    if (!view) return new MapView(host, opts);
    MapView.parked = null;
    view.attach(host, opts.label);
    if (opts.bounds) view.map.fitBounds(padded(opts.bounds) as LngLatBoundsLike, { animate: false, padding: 10 });
    view.map.resize();
    return view;
  }

  private constructor(host: HTMLElement, opts: MapViewOptions) {
    this.host = host;
    this.container = document.createElement('div');
    this.container.className = 'map-canvas';
    this.attach(host, opts.label);
    const sources: Record<string, any> = {
      // 1:50m land holds nothing finer than a z6 tile shows: tiled up to z6, overzoomed past it
      // (far less work in the map's worker than tiling the world's coastlines at every zoom).
      // MapLibre's worker fetches and parses it while the map starts (no copy through this thread).
      land: { type: 'geojson', data: new URL(landUrl, location.href).href, maxzoom: 6 },
      aoi: { type: 'geojson', data: EMPTY },
      coverage: { type: 'geojson', data: EMPTY },
      result: { type: 'geojson', data: EMPTY },
      'result-points': { type: 'geojson', data: EMPTY },
      selected: { type: 'geojson', data: EMPTY },
      draft: { type: 'geojson', data: EMPTY },
    };
    const layers: any[] = [
      { id: 'sea', type: 'background', paint: { 'background-color': '#cddfec' } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#f3f0e8' } },
      { id: 'coast', type: 'line', source: 'land', paint: { 'line-color': '#7d97ab', 'line-width': 0.7 } },
    ];
    if (opts.basemapUrl) {
      sources.online = { type: 'raster', tiles: [opts.basemapUrl], tileSize: 256, attribution: 'Basemap: SARWATCH_BASEMAP_URL' };
      layers.push({ id: 'online', type: 'raster', source: 'online', layout: { visibility: 'visible' } });
    }
    layers.push(
      { id: 'coverage-fill', type: 'fill', source: 'coverage', paint: { 'fill-color': '#2b8cbe', 'fill-opacity': 0.08 } },
      { id: 'coverage-line', type: 'line', source: 'coverage', paint: { 'line-color': '#2b8cbe', 'line-width': 1.5, 'line-dasharray': [3, 2] } },
      { id: 'aoi-line', type: 'line', source: 'aoi', paint: { 'line-color': '#222', 'line-width': 2 } },
      { id: 'draft-fill', type: 'fill', source: 'draft', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': '#6a51a3', 'fill-opacity': 0.15 } },
      { id: 'draft-line', type: 'line', source: 'draft', paint: { 'line-color': '#6a51a3', 'line-width': 2 } },
      { id: 'draft-point', type: 'circle', source: 'draft', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-radius': 4, 'circle-color': '#6a51a3' } },
    );
    this.map = new MapLibre({
      container: this.container,
      style: { version: 8, sources, layers },
      ...(opts.bounds ? { bounds: padded(opts.bounds) as LngLatBoundsLike, fitBoundsOptions: { padding: 10 } } : { center: [4.35, 52.48] as [number, number], zoom: 3 }),
      attributionControl: { compact: true, customAttribution: 'Land: Natural Earth via world-atlas' },
      dragRotate: false,
      pitchWithRotate: false,
      touchPitch: false,
      maxPitch: 0,
      fadeDuration: 0,
    });
    this.map.touchZoomRotate.disableRotation();
    this.map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
    this.map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
    if (opts.basemapUrl) this.map.addControl(new BasemapToggle(), 'top-left');
    // Data can be set once the style's sources exist ('style.load'), not only after MapLibre's
    // 'load' (which waits for every source, the land included, and a first full frame): the
    // result is handed over while the land still loads.
    this.ready = new Promise((resolve) => this.map.once('style.load', () => resolve()));
    this.map.once('load', () => performance.mark('sarwatch:map-loaded'));
    this.map.on('idle', () => this.publish());
    this.map.on('click', (e) => {
      const hits = this.map.queryRenderedFeatures(e.point, { layers: RESULT_LAYERS.filter((l) => this.map.getLayer(l)) });
      const hit = hits.find((h) => h.id !== undefined);
      if (!hit) return;
      const f = this.resultById.get(hit.id!);
      if (f) this.select(f);
    });
    for (const layer of RESULT_LAYERS) {
      this.map.on('mouseenter', layer, () => (this.map.getCanvas().style.cursor = 'pointer'));
      this.map.on('mouseleave', layer, () => (this.map.getCanvas().style.cursor = ''));
    }
  }

  private attach(host: HTMLElement, label: string): void {
    this.host = host;
    host.classList.add('map');
    host.setAttribute('role', 'region');
    host.setAttribute('aria-label', label);
    host.appendChild(this.container);
  }

  /** A listener for this page only: removed when the page releases the map. */
  on(type: 'click' | 'dblclick', fn: (e: any) => void): void {
    this.map.on(type, fn);
    this.pageListeners.push([type, fn]);
  }

  async setAoi(area: GeoJSON.Geometry | null): Promise<void> {
    await this.ready;
    (this.map.getSource('aoi') as GeoJSONSource).setData(area ? { type: 'Feature', properties: {}, geometry: area } : EMPTY);
  }

  async setCoverage(area: GeoJSON.Geometry | null): Promise<void> {
    await this.ready;
    (this.map.getSource('coverage') as GeoJSONSource).setData(area ? { type: 'Feature', properties: {}, geometry: area } : EMPTY);
  }

  /** The polygon being drawn (New job): its vertices and outline. */
  async setDraft(vertices: Array<[number, number]>): Promise<void> {
    await this.ready;
    const features: GeoJSON.Feature[] = vertices.map((c) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: c } }));
    if (vertices.length >= 3) features.push({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[...vertices, vertices[0]!]] } });
    else if (vertices.length === 2) features.push({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: vertices } });
    (this.map.getSource('draft') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
  }

  /** Footprints (scene search): drawn with the coverage style. */
  async setFootprints(fc: GeoJSON.FeatureCollection): Promise<void> {
    await this.ready;
    (this.map.getSource('coverage') as GeoJSONSource).setData(fc);
  }

  /**
   * The quicklook overlay: a PNG in EPSG:3857 spanning `bounds` (degrees), as downloaded with
   * the key. Decoded here and handed to MapLibre as a canvas source placed by its corners (a
   * Web Mercator raster is what that expects); an object URL would need `blob:` in the
   * policy's connect-src, since MapLibre fetches image URLs.
   */
  async setOverlay(overlay: { png: Blob; bounds: [number, number, number, number] } | null): Promise<void> {
    await this.ready;
    if (this.map.getLayer('quicklook')) this.map.removeLayer('quicklook');
    if (this.map.getSource('quicklook')) this.map.removeSource('quicklook');
    if (!overlay) return;
    const bitmap = await createImageBitmap(overlay.png);
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
    bitmap.close();
    const [w, s, e, n] = overlay.bounds;
    this.map.addSource('quicklook', { type: 'canvas', canvas, animate: false, coordinates: [[w, n], [e, n], [e, s], [w, s]] });
    this.map.addLayer({ id: 'quicklook', type: 'raster', source: 'quicklook', paint: { 'raster-opacity': 0.85, 'raster-fade-duration': 0 } }, 'coverage-fill');
    this.host.dataset.overlay = 'shown';
  }

  /**
   * Draws a result. The same result object again (the job page returned to within the app:
   * job.ts keeps the last result) is not handed to the map's worker again — its sources were
   * kept when the page released the map, only the layers were removed.
   */
  async setResult(endpoint: EndpointId, fc: GeoJSON.FeatureCollection): Promise<void> {
    await this.ready;
    for (const id of [...RESULT_LAYERS, 'selected-line', 'selected-point']) if (this.map.getLayer(id)) this.map.removeLayer(id);
    const reused = this.resultData === fc;
    this.resultData = fc;
    this.resultById = new Map();
    const points: GeoJSON.Feature[] = [];
    const markers = endpoint === 'ship';
    fc.features.forEach((f, i) => {
      // Feature ids are integers 1…n by the spec; fall back to the position for anything else.
      const id = typeof f.id === 'number' ? f.id : i + 1;
      this.resultById.set(id, f);
      const c = markers && !reused ? centroid(f.geometry) : null;
      if (c) points.push({ type: 'Feature', id, properties: {}, geometry: { type: 'Point', coordinates: c } });
    });
    // The map gets geometry and the few properties its styles read; the rest (a time-series
    // cell's chart: most of the bytes) stays here for the properties panel.
    if (!reused) {
      const drawn = fc.features.map((f, i) => ({ type: 'Feature' as const, id: typeof f.id === 'number' ? f.id : i + 1, geometry: f.geometry, properties: styleProperties(f.properties) }));
      (this.map.getSource('result') as GeoJSONSource).setData({ type: 'FeatureCollection', features: drawn });
      (this.map.getSource('result-points') as GeoJSONSource).setData({ type: 'FeatureCollection', features: points });
    }
    for (const layer of resultLayers(endpoint)) this.map.addLayer(layer as any);
    this.map.addLayer({ id: 'selected-line', type: 'line', source: 'selected', filter: ['!=', ['geometry-type'], 'Point'], paint: { 'line-color': '#000', 'line-width': 3 } });
    this.map.addLayer({
      id: 'selected-point',
      type: 'circle',
      source: 'selected',
      filter: ['==', ['geometry-type'], 'Point'],
      paint: { 'circle-radius': 9, 'circle-opacity': 0, 'circle-stroke-color': '#000', 'circle-stroke-width': 2.5 },
    });
    this.host.dataset.resultFeatures = String(fc.features.length);
    delete this.host.dataset.renderedFeatures;
    this.allDrawn = false;
  }

  onFeatureClick(fn: (f: GeoJSON.Feature) => void): void {
    this.clickHandlers.push(fn);
  }

  select(f: GeoJSON.Feature | null): void {
    const src = this.map.getSource('selected') as GeoJSONSource | undefined;
    const c = f ? centroid(f.geometry) : null;
    const marked: GeoJSON.Feature[] = f ? [{ type: 'Feature', properties: {}, geometry: f.geometry }] : [];
    if (c) marked.push({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: c } });
    src?.setData({ type: 'FeatureCollection', features: marked });
    if (f) for (const h of this.clickHandlers) h(f);
  }

  /** Frames the map on a bbox (at once: the camera needs no style loaded); false for none. */
  fitTo(bbox: [number, number, number, number] | null): boolean {
    if (!bbox) return false;
    this.map.fitBounds(padded(bbox) as LngLatBoundsLike, { animate: false, padding: 10 });
    return true;
  }

  /** Result features MapLibre reports on screen now, counted by feature id. */
  renderedResultFeatures(): number {
    const layers = RESULT_LAYERS.filter((l) => this.map.getLayer(l));
    if (!layers.length) return 0;
    const ids = new Set(this.map.queryRenderedFeatures({ layers }).map((f: MapGeoJSONFeature) => f.id));
    ids.delete(undefined);
    return ids.size;
  }

  private publish(): void {
    const c = this.map.getCenter();
    this.host.dataset.view = JSON.stringify({ lon: c.lng, lat: c.lat, zoom: this.map.getZoom() });
    if (this.host.dataset.resultFeatures !== undefined) {
      const rendered = this.renderedResultFeatures();
      this.host.dataset.renderedFeatures = String(rendered);
      performance.mark('sarwatch:map-idle-with-result');
      // The page's render time ends here: MapLibre idle, every result feature drawn (once per result).
      if (rendered === Number(this.host.dataset.resultFeatures) && !this.allDrawn) {
        this.allDrawn = true;
        performance.mark('sarwatch:all-features-drawn');
      }
    }
    this.host.dispatchEvent(new CustomEvent('map-idle'));
  }

  /**
   * The page is done with the map: its data, layers and listeners go, and the map is parked
   * for the next page (detached from the DOM; MapLibre keeps its WebGL context and worker).
   */
  release(): void {
    for (const [type, fn] of this.pageListeners) this.map.off(type as 'click', fn);
    this.pageListeners = [];
    this.clickHandlers = [];
    this.resultById = new Map();
    for (const id of [...RESULT_LAYERS, 'selected-line', 'selected-point', 'quicklook']) if (this.map.getLayer(id)) this.map.removeLayer(id);
    if (this.map.getSource('quicklook')) this.map.removeSource('quicklook');
    // The result's sources keep their data (no layer draws them now): the same job's page,
    // returned to, draws it again without a new hand-over to the worker. Any other result replaces it.
    for (const id of ['aoi', 'coverage', 'selected', 'draft']) (this.map.getSource(id) as GeoJSONSource | undefined)?.setData(EMPTY);
    this.map.doubleClickZoom.enable();
    this.container.remove();
    this.host = document.createElement('div');
    MapView.parked?.map.remove();
    MapView.parked = this;
  }
}

/** A checkbox on the map that shows or hides the online basemap (the offline land stays beneath). */
class BasemapToggle implements IControl {
  private box: HTMLElement | null = null;
  onAdd(map: MapLibre): HTMLElement {
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = true;
    input.addEventListener('change', () => map.setLayoutProperty('online', 'visibility', input.checked ? 'visible' : 'none'));
    const label = document.createElement('label');
    label.className = 'basemap-toggle';
    label.append(input, document.createTextNode(' Online basemap'));
    this.box = document.createElement('div');
    this.box.className = 'maplibregl-ctrl maplibregl-ctrl-group';
    this.box.appendChild(label);
    return this.box;
  }
  onRemove(): void {
    this.box?.remove();
  }
}

/** The properties the result styles read (map/resultStyle.ts), numbers only. */
function styleProperties(p: GeoJSON.GeoJsonProperties): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of STYLE_KEYS) {
    const v = p?.[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

/** A representative point for a feature's marker: the mean of its outer ring's vertices. */
export function centroid(g: GeoJSON.Geometry | null): [number, number] | null {
  if (!g) return null;
  if (g.type === 'Point') return g.coordinates as [number, number];
  const ring = g.type === 'Polygon' ? g.coordinates[0] : g.type === 'MultiPolygon' ? g.coordinates[0]?.[0] : null;
  if (!ring || ring.length === 0) return null;
  const pts = ring.length > 1 ? ring.slice(0, -1) : ring;
  const x = pts.reduce((s, p) => s + p[0]!, 0) / pts.length;
  const y = pts.reduce((s, p) => s + p[1]!, 0) / pts.length;
  return [x, y];
}
