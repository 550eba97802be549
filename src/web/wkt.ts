/** WKT ⇄ GeoJSON through @terraformer/wkt; only POLYGON and MULTIPOLYGON are AOIs. */
import { geojsonToWKT, wktToGeoJSON } from '@terraformer/wkt';

export type Area = GeoJSON.Polygon | GeoJSON.MultiPolygon;

/** The polygon of a WKT string, or null when it is not a (multi)polygon we can draw. */
export function parseArea(wkt: string): Area | null {
  try {
    const g = wktToGeoJSON(wkt) as GeoJSON.Geometry;
    return g.type === 'Polygon' || g.type === 'MultiPolygon' ? g : null;
  } catch {
    return null;
  }
}

export function areaToWkt(area: Area): string {
  return geojsonToWKT(area);
}

/** [west, south, east, north] of some geometries' coordinates. */
export function bboxOf(geoms: Array<GeoJSON.Geometry | null | undefined>): [number, number, number, number] | null {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  const visit = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') {
      const [x, y] = c as number[];
      if (x! < w) w = x!;
      if (x! > e) e = x!;
      if (y! < s) s = y!;
      if (y! > n) n = y!;
    } else if (Array.isArray(c)) c.forEach(visit);
  };
  for (const g of geoms) {
    if (!g) continue;
    if (g.type === 'GeometryCollection') g.geometries.forEach((x) => visit('coordinates' in x ? x.coordinates : []));
    else visit(g.coordinates);
  }
  return Number.isFinite(w) ? [w, s, e, n] : null;
}
