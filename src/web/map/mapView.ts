/**
 * One Leaflet map with the dashboard's layers, all drawn on 2D canvases (no WebGL, no worker):
 * an offline basemap (world-atlas land at 1:50m as GeoJSON made at build time, a canvas of its
 * own so it needs no network), an optional online raster basemap (SARWATCH_BASEMAP_URL), the
 * quicklook overlay, then the coverage, the AOI, the drawing and a job's result features styled
 * per endpoint (map/resultStyle.ts) on one canvas renderer, which also finds the feature under
 * a click.
 *
 * A page opens its map (MapView.open) and releases it when left: a Leaflet map costs a few
 * milliseconds to make; the land's GeoJSON is fetched and parsed once per visit.
 *
 * The host element carries what the map drew, for people and tests alike:
 * `data-result-features` (features in the result), `data-rendered-features` (distinct result
 * features drawn within the map's view, counted after the frame that paints them, at every
 * move), and `data-view` (centre and Leaflet zoom: 256-px tiles) so a click can be aimed at a
 * known coordinate.
 */
import * as L from 'leaflet';
import 'leaflet/dist/leaflet.css';
// Land as GeoJSON made at build time (vite.config.mjs).
import landUrl from 'virtual:sarwatch-land';
import type { EndpointId } from '../types.ts';
import { OUTLINE_MIN_ZOOM, SELECTED_OUTLINE, SELECTED_RING, resultStyle, shipMarker, shipOutline } from './resultStyle.ts';

export interface MapViewOptions {
  basemapUrl: string | null;
  /** Accessible name of the map region. */
  label: string;
  /** The first view, [w, s, e, n]: given when known, the map starts there. */
  bounds?: [number, number, number, number] | null;
}

type Bbox = [number, number, number, number];

/** A bbox with a margin, as the map is fitted to it. */
function padded([w, s, e, n]: Bbox): L.LatLngBounds {
  const pad = Math.max((e - w) * 0.05, (n - s) * 0.05, 0.002);
  return L.latLngBounds([s - pad, w - pad], [n + pad, e + pad]);
}

const LAND: L.PathOptions = { fillColor: '#f3f0e8', fillOpacity: 1, color: '#7d97ab', weight: 0.7 };
const FIT: L.FitBoundsOptions = { animate: false, padding: [10, 10] };

/** One polygon of the land and its bbox [w, s, e, n]. */
interface LandPart {
  bbox: Bbox;
  geometry: GeoJSON.Polygon;
}

/** The land's polygons: fetched and parsed once per visit, drawn by every map after. */
let land: Promise<LandPart[] | null> | null = null;
function landData(): Promise<LandPart[] | null> {
  land ??= fetch(new URL(landUrl, location.href))
    .then((r) => (r.ok ? (r.json() as Promise<GeoJSON.FeatureCollection>) : null))
    .then((fc) => (fc ? landParts(fc) : null))
    .catch(() => null);
  return land;
}

function landParts(fc: GeoJSON.FeatureCollection): LandPart[] {
  const parts: LandPart[] = [];
  for (const { geometry: g } of fc.features) {
    for (const coordinates of g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : []) {
      const bbox: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
      for (const [x, y] of coordinates[0] ?? []) {
        bbox[0] = Math.min(bbox[0], x!);
        bbox[1] = Math.min(bbox[1], y!);
        bbox[2] = Math.max(bbox[2], x!);
        bbox[3] = Math.max(bbox[3], y!);
      }
      parts.push({ bbox, geometry: { type: 'Polygon', coordinates } });
    }
  }
  return parts;
}

const nextFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/** A result feature and the layer that draws it (a ship: its marker; outlines are extra). */
interface Drawn {
  feature: GeoJSON.Feature;
  layer: L.Layer;
}

/** The feature a click on a result layer hit (L.geoJSON and setResult put it on the layer). */
function clicked(e: L.LeafletEvent): GeoJSON.Feature | undefined {
  return ((e as L.LeafletEvent & { propagatedFrom?: { feature?: GeoJSON.Feature } }).propagatedFrom ?? (e.target as { feature?: GeoJSON.Feature })).feature;
}

export class MapView {
  readonly map: L.Map;
  readonly host: HTMLElement;
  /** Vectors above the basemaps: coverage, AOI, drawing, result, selection. */
  private readonly vectors: L.Canvas;
  /** The offline land: its canvas, the world's polygons, and the layer drawn of those near the view. */
  private readonly landRenderer = L.canvas({ pane: 'land' });
  private landParts: LandPart[] | null = null;
  private land: { layer: L.GeoJSON; covers: L.LatLngBounds } | null = null;
  private aoi: L.Layer | null = null;
  private coverage: L.Layer | null = null;
  private draft: L.Layer | null = null;
  private overlay: L.ImageOverlay | null = null;
  private selected: L.LayerGroup;
  private result: L.FeatureGroup | null = null;
  private outlines: L.FeatureGroup | null = null;
  private drawnFeatures: Drawn[] = [];
  private endpoint: EndpointId | null = null;
  private clickHandlers: Array<(f: GeoJSON.Feature) => void> = [];
  /** The current result has been reported all drawn (the sarwatch:all-features-drawn mark). */
  private allDrawn = false;
  private publishing = 0;
  /** Released: the page is gone, so is the map. */
  private removed = false;

  /** Starts fetching the land (once per visit): a map page calls it first, so it comes in beside the page's own requests. */
  static preload(): void {
    void landData();
  }

  static open(host: HTMLElement, opts: MapViewOptions): MapView {
    return new MapView(host, opts);
  }

  private constructor(host: HTMLElement, opts: MapViewOptions) {
    this.host = host;
    host.classList.add('map');
    host.setAttribute('role', 'region');
    host.setAttribute('aria-label', opts.label);
    const container = document.createElement('div');
    container.className = 'map-canvas';
    host.appendChild(container);
    this.map = L.map(container, { zoomControl: false, attributionControl: false, boxZoom: false });
    // Beneath the online tiles (tilePane, 200): the land; above them, below the vectors (overlayPane, 400): the quicklook.
    this.map.createPane('land').style.zIndex = '150';
    this.map.createPane('quicklook').style.zIndex = '350';
    this.vectors = L.canvas({ tolerance: 3 });
    this.selected = L.layerGroup().addTo(this.map);
    if (opts.bounds) this.map.fitBounds(padded(opts.bounds), FIT);
    else this.map.setView([52.48, 4.35], 4);
    L.control.zoom({ position: 'topright' }).addTo(this.map);
    L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(this.map);
    const attribution = L.control.attribution({ prefix: false, position: 'bottomright' }).addTo(this.map);
    attribution.addAttribution('Land: Natural Earth via world-atlas');
    if (opts.basemapUrl) {
      const online = L.tileLayer(opts.basemapUrl, { attribution: 'Basemap: SARWATCH_BASEMAP_URL' }).addTo(this.map);
      new BasemapToggle(online).addTo(this.map);
    }
    void landData().then((parts) => {
      if (!parts || this.removed) return;
      performance.mark('sarwatch:land-fetched');
      this.landParts = parts;
      this.drawLand();
      performance.mark('sarwatch:map-loaded');
    });
    this.map.on('moveend', () => {
      this.drawLand();
      this.publish();
    });
    this.map.on('zoomend', () => this.showOutlines());
    this.publish();
  }

  /**
   * The land around the view: the polygons whose bbox meets the view grown by its own size on
   * every side, made again only when the view leaves that. Leaflet converts and projects every
   * point of a layer (on each zoom), and a port's view needs a quarter of the world's 60,000.
   */
  private drawLand(): void {
    if (!this.landParts || this.removed) return;
    const view = this.map.getBounds();
    if (this.land?.covers.contains(view)) return;
    const covers = view.pad(1);
    const [w, s, e, n] = [covers.getWest(), covers.getSouth(), covers.getEast(), covers.getNorth()];
    const features = this.landParts
      .filter(({ bbox }) => bbox[0] <= e && bbox[2] >= w && bbox[1] <= n && bbox[3] >= s)
      .map((p): GeoJSON.Feature => ({ type: 'Feature', properties: {}, geometry: p.geometry }));
    const layer = L.geoJSON({ type: 'FeatureCollection', features } as GeoJSON.FeatureCollection, { pane: 'land', renderer: this.landRenderer, interactive: false, style: () => LAND } as L.GeoJSONOptions);
    if (this.land) this.map.removeLayer(this.land.layer);
    this.land = { layer: layer.addTo(this.map), covers };
  }

  /** A map click or double-click for the page (the drawing of New job); gone with the map. */
  on(type: 'click' | 'dblclick', fn: (at: { lng: number; lat: number }) => void): void {
    this.map.on(type, (e: L.LeafletMouseEvent) => fn(e.latlng));
  }

  /** Replaces one of the vector layers; the stack stays coverage < AOI < drawing < result < selection. */
  private swap(old: L.Layer | null, next: L.Layer | null): L.Layer | null {
    if (old) this.map.removeLayer(old);
    if (next) {
      next.addTo(this.map);
      for (const above of [this.aoi, this.draft, this.outlines, this.result]) if (above && above !== next) (above as L.FeatureGroup).bringToFront();
      for (const s of this.selected.getLayers()) (s as L.Path).bringToFront();
    }
    return next;
  }

  private shape(area: GeoJSON.GeoJsonObject | null, style: L.PathOptions): L.Layer | null {
    return area ? L.geoJSON(area, { renderer: this.vectors, interactive: false, style: () => style } as L.GeoJSONOptions) : null;
  }

  async setAoi(area: GeoJSON.Geometry | null): Promise<void> {
    this.aoi = this.swap(this.aoi, this.shape(area, { color: '#222', weight: 2, fill: false }));
  }

  async setCoverage(area: GeoJSON.GeoJsonObject | null): Promise<void> {
    this.coverage = this.swap(this.coverage, this.shape(area, { color: '#2b8cbe', weight: 1.5, dashArray: '4.5 3', fillColor: '#2b8cbe', fillOpacity: 0.08 }));
  }

  /** The polygon being drawn (New job): its vertices and outline. */
  async setDraft(vertices: Array<[number, number]>): Promise<void> {
    const style = { renderer: this.vectors, interactive: false, color: '#6a51a3', weight: 2 };
    const ll = vertices.map(([lon, lat]) => L.latLng(lat, lon));
    const group = L.featureGroup();
    if (ll.length >= 3) L.polygon(ll, { ...style, fillOpacity: 0.15 }).addTo(group);
    else if (ll.length === 2) L.polyline(ll, style).addTo(group);
    for (const p of ll) L.circleMarker(p, { ...style, radius: 4, stroke: false, fillOpacity: 1 }).addTo(group);
    this.draft = this.swap(this.draft, ll.length ? group : null);
  }

  /** Footprints (scene search): drawn with the coverage style. */
  async setFootprints(fc: GeoJSON.FeatureCollection): Promise<void> {
    await this.setCoverage(fc.features.length ? fc : null);
  }

  /**
   * The quicklook overlay: a PNG in EPSG:3857 spanning `bounds` (degrees), as downloaded with
   * the key. Leaflet's imageOverlay stretches an image linearly between its projected corners,
   * which for a Web Mercator grid places every pixel where it belongs. The PNG goes in as a
   * data: URL (the policy's img-src has data:; a blob: URL would need more).
   */
  async setOverlay(overlay: { png: Blob; bounds: Bbox } | null): Promise<void> {
    if (this.overlay) this.map.removeLayer(this.overlay);
    this.overlay = null;
    delete this.host.dataset.overlay;
    if (!overlay) return;
    const url = await new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as string);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(overlay.png);
    });
    if (this.removed) return;
    const [w, s, e, n] = overlay.bounds;
    const layer = L.imageOverlay(url, [[s, w], [n, e]], { pane: 'quicklook', opacity: 0.85, interactive: false, alt: 'Quicklook overlay' });
    await new Promise<void>((resolve) => {
      layer.once('load error', () => resolve());
      this.overlay = layer.addTo(this.map);
    });
    this.host.dataset.overlay = 'shown';
  }

  /**
   * Draws a result: one canvas path per feature (a ship: a marker at its centre, its outline
   * from zoom OUTLINE_MIN_ZOOM, made when first zoomed to), clickable for its properties.
   */
  async setResult(endpoint: EndpointId, fc: GeoJSON.FeatureCollection): Promise<void> {
    for (const g of [this.result, this.outlines]) if (g) this.map.removeLayer(g);
    this.outlines = null;
    this.selected.clearLayers();
    this.drawnFeatures = [];
    let group: L.FeatureGroup;
    if (endpoint === 'ship') {
      group = L.featureGroup();
      const style = { ...shipMarker, renderer: this.vectors };
      for (const f of fc.features) {
        const c = centroid(f.geometry);
        if (!c) continue;
        const marker = L.circleMarker([c[1], c[0]], style);
        marker.feature = f as GeoJSON.Feature<GeoJSON.Point>;
        marker.addTo(group);
        this.drawnFeatures.push({ feature: f, layer: marker });
      }
    } else {
      group = L.geoJSON(fc, {
        renderer: this.vectors,
        style: (f) => resultStyle(endpoint, f?.properties ?? null),
        pointToLayer: (f, at) => L.circleMarker(at, { ...resultStyle(endpoint, f.properties), radius: 5 }),
        onEachFeature: (f, layer) => void this.drawnFeatures.push({ feature: f, layer }),
      } as L.GeoJSONOptions);
    }
    group.on('click', (e) => {
      const f = clicked(e);
      if (f) this.select(f);
    });
    this.endpoint = endpoint;
    this.result = this.swap(null, group) as L.FeatureGroup;
    this.showOutlines();
    this.host.dataset.resultFeatures = String(fc.features.length);
    delete this.host.dataset.renderedFeatures;
    this.allDrawn = false;
    this.publish();
  }

  /** Ship outlines at OUTLINE_MIN_ZOOM and in: sub-pixel below it, and 5,000 of them cost a redraw for nothing. */
  private showOutlines(): void {
    if (this.endpoint !== 'ship' || !this.result || this.removed) return;
    const want = this.map.getZoom() >= OUTLINE_MIN_ZOOM;
    if (want && !this.outlines) {
      const ships = this.drawnFeatures.map((d) => d.feature).filter((f) => f.geometry?.type === 'Polygon' || f.geometry?.type === 'MultiPolygon');
      const group = L.geoJSON({ type: 'FeatureCollection', features: ships } as GeoJSON.FeatureCollection, { renderer: this.vectors, style: () => shipOutline } as L.GeoJSONOptions);
      group.on('click', (e) => {
        const f = clicked(e);
        if (f) this.select(f);
      });
      this.outlines = this.swap(null, group) as L.FeatureGroup;
    } else if (!want && this.outlines) {
      this.map.removeLayer(this.outlines);
      this.outlines = null;
    }
  }

  onFeatureClick(fn: (f: GeoJSON.Feature) => void): void {
    this.clickHandlers.push(fn);
  }

  select(f: GeoJSON.Feature | null): void {
    this.selected.clearLayers();
    const c = f ? centroid(f.geometry) : null;
    if (f?.geometry && f.geometry.type !== 'Point') L.geoJSON(f, { renderer: this.vectors, interactive: false, style: () => SELECTED_OUTLINE } as L.GeoJSONOptions).eachLayer((l) => void this.selected.addLayer(l));
    if (c) this.selected.addLayer(L.circleMarker([c[1], c[0]], { ...SELECTED_RING, renderer: this.vectors, interactive: false }));
    if (f) for (const h of this.clickHandlers) h(f);
  }

  /** Frames the map on a bbox (at once); false for none. */
  fitTo(bbox: Bbox | null): boolean {
    if (!bbox) return false;
    this.map.fitBounds(padded(bbox), FIT);
    return true;
  }

  /** Result features drawn within the view now (a marker's centre, or a shape's bounds, inside it). */
  renderedResultFeatures(): number {
    const view = this.map.getBounds();
    let n = 0;
    for (const { layer } of this.drawnFeatures) {
      if (layer instanceof L.CircleMarker ? view.contains(layer.getLatLng()) : view.intersects((layer as L.Polygon).getBounds())) n++;
    }
    return n;
  }

  /**
   * Publishes the view and the count of result features drawn, after the frame that paints
   * them: the canvas redraws in an animation frame (requested when layers change or the map
   * moves), so the count is taken one frame after that one, once the page has been painted.
   */
  private publish(): void {
    if (this.removed) return;
    const c = this.map.getCenter();
    this.host.dataset.view = JSON.stringify({ lon: c.lng, lat: c.lat, zoom: this.map.getZoom() });
    const seq = ++this.publishing;
    void nextFrame()
      .then(nextFrame)
      .then(() => {
        if (seq !== this.publishing || this.removed) return;
        if (this.host.dataset.resultFeatures !== undefined) {
          const rendered = this.renderedResultFeatures();
          this.host.dataset.renderedFeatures = String(rendered);
          // The page's render time ends here: every result feature drawn and painted (once per result).
          if (rendered === Number(this.host.dataset.resultFeatures) && !this.allDrawn) {
            this.allDrawn = true;
            performance.mark('sarwatch:all-features-drawn');
          }
        }
        this.host.dispatchEvent(new CustomEvent('map-idle'));
      });
  }

  /**
   * The page is done with the map. Leaflet (1.9.4) keeps timers past remove() — a window resize
   * fires a debounced `moveend` 200 ms later (invalidateSize's _sizeTimer; Leaflet issues #6981,
   * #9575) — and the land may arrive after it, so every handler here returns once released:
   * a removed map has no panes, and asking it for its centre throws.
   */
  release(): void {
    this.clickHandlers = [];
    this.publishing++;
    this.removed = true;
    this.map.remove();
  }
}

/** A checkbox on the map that shows or hides the online basemap (the offline land stays beneath). */
class BasemapToggle extends L.Control {
  constructor(private readonly layer: L.TileLayer) {
    super({ position: 'topleft' });
  }
  override onAdd(map: L.Map): HTMLElement {
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = true;
    input.addEventListener('change', () => (input.checked ? this.layer.addTo(map) : map.removeLayer(this.layer)));
    const label = document.createElement('label');
    label.className = 'basemap-toggle';
    label.append(input, document.createTextNode(' Online basemap'));
    const box = document.createElement('div');
    box.className = 'leaflet-bar';
    box.appendChild(label);
    L.DomEvent.disableClickPropagation(box);
    return box;
  }
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
