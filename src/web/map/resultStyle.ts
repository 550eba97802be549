/**
 * How each endpoint's result is drawn. Colours come from the values (oil_probability,
 * deviation), never from style strings in the result: those are data too.
 */
import type { EndpointId } from '../types.ts';

export const RESULT_LAYERS = ['result-fill', 'result-line', 'result-point'];
/** The only properties the styles below read; the map is given these alone. */
export const STYLE_KEYS = ['deviation', 'oil_probability'] as const;

/** docs/timeseries.md, Style: ColorBrewer RdBu in 7 classes of the deviation; null grey. */
const DEVIATION_FILL = [
  'case',
  ['!=', ['typeof', ['get', 'deviation']], 'number'], '#bdbdbd',
  ['step', ['get', 'deviation'], '#2166ac', -3, '#67a9cf', -2, '#d1e5f0', -1, '#f7f7f7', 1, '#fddbc7', 2, '#ef8a62', 3, '#b2182b'],
];
const DEVIATION_OPACITY = [
  'case',
  ['!=', ['typeof', ['get', 'deviation']], 'number'], 0.2,
  ['step', ['get', 'deviation'], 0.75, -3, 0.6, -2, 0.45, -1, 0.3, 1, 0.45, 2, 0.6, 3, 0.75],
];
/** Oil probability 0.5 → 1 on viridis (yellow → purple), so the likeliest slicks are darkest. */
const OIL_FILL = ['interpolate', ['linear'], ['to-number', ['get', 'oil_probability'], 0.5], 0.5, '#fde725', 0.75, '#21918c', 1, '#440154'];

export function resultLayers(endpoint: EndpointId): object[] {
  switch (endpoint) {
    case 'ship':
      return [
        // Outlines from zoom 12 (a 100 m vessel is 5 px there); below it they are sub-pixel, and
        // thousands of them would cost the map's worker and renderer for nothing visible.
        { id: 'result-fill', type: 'fill', source: 'result', minzoom: 12, paint: { 'fill-color': '#f16913', 'fill-opacity': 0.35 } },
        { id: 'result-line', type: 'line', source: 'result', minzoom: 12, paint: { 'line-color': '#a63603', 'line-width': 1.5 } },
        // A marker per vessel at every zoom.
        {
          id: 'result-point',
          type: 'circle',
          source: 'result-points',
          paint: { 'circle-radius': 5, 'circle-color': '#d94801', 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 },
        },
      ];
    case 'oilslick':
      return [
        { id: 'result-fill', type: 'fill', source: 'result', paint: { 'fill-color': OIL_FILL, 'fill-opacity': 0.65 } },
        { id: 'result-line', type: 'line', source: 'result', paint: { 'line-color': '#3b0f70', 'line-width': 1 } },
      ];
    case 'newbuilding':
    case 'disappearbuilding': {
      const colour = endpoint === 'newbuilding' ? '#e31a1c' : '#1f78b4';
      return [
        { id: 'result-fill', type: 'fill', source: 'result', paint: { 'fill-color': colour, 'fill-opacity': 0.45 } },
        { id: 'result-line', type: 'line', source: 'result', paint: { 'line-color': colour, 'line-width': 1.5 } },
      ];
    }
    case 'timeseries':
      return [
        { id: 'result-fill', type: 'fill', source: 'result', paint: { 'fill-color': DEVIATION_FILL, 'fill-opacity': DEVIATION_OPACITY } },
        { id: 'result-line', type: 'line', source: 'result', paint: { 'line-color': '#636363', 'line-width': 0.5 } },
      ];
    case 'idlefarm':
      return [];
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
