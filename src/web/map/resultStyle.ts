/**
 * How each endpoint's result is drawn (Leaflet path styles). Colours come from the values
 * (oil_probability, deviation), never from style strings in the result: those are data too.
 */
import type { PathOptions } from 'leaflet';
import type { EndpointId } from '../types.ts';

/** Ship outlines from this Leaflet zoom (about 12 m a pixel at 52°N: a 100 m vessel is 8 px); a marker at every zoom. */
export const OUTLINE_MIN_ZOOM = 13;
export const shipMarker: PathOptions & { radius: number } = { radius: 5, fillColor: '#d94801', fillOpacity: 1, color: '#fff', weight: 1.5 };
export const shipOutline: PathOptions = { fillColor: '#f16913', fillOpacity: 0.35, color: '#a63603', weight: 1.5, interactive: true };
/** The clicked feature: its outline and a ring at its centre. */
export const SELECTED_OUTLINE: PathOptions = { color: '#000', weight: 3, fill: false };
export const SELECTED_RING: PathOptions & { radius: number } = { radius: 9, color: '#000', weight: 2.5, fill: false };

/** docs/timeseries.md, Style: ColorBrewer RdBu in 7 classes of the deviation (upper bounds); null grey. */
const DEVIATION_CLASSES: Array<[number, string, number]> = [
  [-3, '#2166ac', 0.75],
  [-2, '#67a9cf', 0.6],
  [-1, '#d1e5f0', 0.45],
  [1, '#f7f7f7', 0.3],
  [2, '#fddbc7', 0.45],
  [3, '#ef8a62', 0.6],
  [Infinity, '#b2182b', 0.75],
];

/** The class of a deviation: the first whose upper bound lies above it (−3 itself is −3 … −2). */
export function deviationColour(deviation: unknown): { fillColor: string; fillOpacity: number } {
  if (typeof deviation !== 'number' || !Number.isFinite(deviation)) return { fillColor: '#bdbdbd', fillOpacity: 0.2 };
  const [, fillColor, fillOpacity] = DEVIATION_CLASSES.find(([upper]) => deviation < upper)!;
  return { fillColor, fillOpacity };
}

/** Oil probability 0.5 → 1 on viridis (yellow → purple), so the likeliest slicks are darkest; linear between the stops. */
const OIL_STOPS: Array<[number, [number, number, number]]> = [
  [0.5, [0xfd, 0xe7, 0x25]],
  [0.75, [0x21, 0x91, 0x8c]],
  [1, [0x44, 0x01, 0x54]],
];
export function oilColour(p: unknown): string {
  const v = Math.min(1, Math.max(0.5, typeof p === 'number' && Number.isFinite(p) ? p : 0.5));
  const i = v >= 0.75 ? 1 : 0;
  const [a, ca] = OIL_STOPS[i]!;
  const [b, cb] = OIL_STOPS[i + 1]!;
  const t = (v - a) / (b - a);
  return `#${ca.map((x, k) => Math.round(x + (cb[k]! - x) * t).toString(16).padStart(2, '0')).join('')}`;
}

/** The style of one result feature (not ship: those are markers, shipMarker/shipOutline). */
export function resultStyle(endpoint: EndpointId, p: GeoJSON.GeoJsonProperties): PathOptions {
  switch (endpoint) {
    case 'oilslick':
      return { fillColor: oilColour(p?.oil_probability), fillOpacity: 0.65, color: '#3b0f70', weight: 1 };
    case 'newbuilding':
    case 'disappearbuilding': {
      const colour = endpoint === 'newbuilding' ? '#e31a1c' : '#1f78b4';
      return { fillColor: colour, fillOpacity: 0.45, color: colour, weight: 1.5 };
    }
    case 'timeseries':
      return { ...deviationColour(p?.deviation), color: '#636363', weight: 0.5 };
    case 'ship':
      return shipOutline;
    case 'idlefarm':
      return {};
  }
}

/** Legend rows (colour, label) for the page beside the map. */
export function legend(endpoint: EndpointId): Array<[string, string]> {
  switch (endpoint) {
    case 'ship':
      return [['#d94801', 'vessel (marker at its centre, outline when zoomed in)']];
    case 'oilslick':
      return [['#fde725', 'oil probability 0.5'], ['#21918c', '0.75'], ['#440154', '1.0']];
    case 'newbuilding':
      return [['#e31a1c', 'new building']];
    case 'disappearbuilding':
      return [['#1f78b4', 'disappeared building']];
    case 'timeseries':
      return [
        ['#2166ac', 'deviation ≤ −3 (darker than usual)'],
        ['#d1e5f0', '−2 … −1'],
        ['#f7f7f7', '−1 … 1'],
        ['#fddbc7', '1 … 2'],
        ['#b2182b', '≥ 3 (brighter than usual)'],
        ['#bdbdbd', 'no deviation (too few dates)'],
      ];
    case 'idlefarm':
      return [];
  }
}
