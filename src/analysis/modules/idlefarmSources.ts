// The scenes of an idlefarm job as raster sources, the way the time-series and change jobs
// read them (rtcInput.ts): RTC GeoTIFFs as they are (analyze family),
// GRD products geocoded onto one 10 m UTM grid over the fields' bounding box (detect family),
// so every date of a field is read on the same pixels.

import type { ResolvedScene } from '../port.ts';
import type { AoiGeometry, Ring } from '../../geo/types.ts';
import { detectFamilyGrid, grdSources, rtcPaths } from './rtcInput.ts';
import type { SeriesScene } from '../timeseries/series.ts';
import { fieldGeometry, type UploadedCollection } from '../idlefarm/index.ts';

/** All polygon fields as one MultiPolygon (for the common grid; overlaps do not matter there). */
export function fieldsExtent(fields: UploadedCollection): AoiGeometry | null {
  const parts: Ring[][] = [];
  for (const f of fields.features) {
    const g = fieldGeometry(f);
    if (g) parts.push(...(g.type === 'Polygon' ? [g.coordinates] : g.coordinates));
  }
  return parts.length ? { type: 'MultiPolygon', coordinates: parts } : null;
}

export function idlefarmSources(family: 'analyze' | 'detect', scenes: readonly ResolvedScene[], fields: UploadedCollection): SeriesScene[] {
  if (family === 'analyze') return scenes.map((s) => ({ date: s.startTime.slice(0, 10), ...rtcPaths(s) }));
  const extent = fieldsExtent(fields);
  if (!extent) return [];
  const grid = detectFamilyGrid(extent);
  return scenes.map((s) => ({ date: s.startTime.slice(0, 10), ...grdSources(s, grid) }));
}
