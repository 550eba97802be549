/**
 * The quicklook's pixel grid: north-up Web Mercator (EPSG:3857), square pixels. A web map
 * draws an image by linear interpolation between its four corners in Mercator, so a raster on
 * this grid lands on the map exactly, given its WGS84 bounds.
 */
import type { BBox } from '../../geo/types.ts';

/** The WGS84 / Web Mercator sphere radius (EPSG:3857). */
const R = 6_378_137;
/** Web Mercator's latitude limit: beyond it a web map draws nothing. */
export const MAX_MERCATOR_LAT = 85.05112878;

export function lonLatToMercator(lon: number, lat: number): [number, number] {
  const phi = (Math.max(-MAX_MERCATOR_LAT, Math.min(MAX_MERCATOR_LAT, lat)) * Math.PI) / 180;
  return [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + phi / 2))];
}

export function mercatorToLonLat(x: number, y: number): [number, number] {
  return [((x / R) * 180) / Math.PI, ((2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * 180) / Math.PI];
}

export interface MercatorGrid {
  /** Upper-left corner (Mercator metres) and the pixel size (Mercator metres). */
  x0: number;
  y0: number;
  pixel: number;
  width: number;
  height: number;
  /** The image's corners in WGS84: [west, south, east, north]. */
  bounds: BBox;
}

/**
 * The grid over `bbox` (lon/lat) with at most `maxSide` pixels on the long side and pixels no
 * finer than `finestGroundM` on the ground (no point in drawing a 10 m image at 2 m). The
 * grid's east and south edges are where its last pixel ends, so `bounds` are the image's own.
 */
export function mercatorGrid(bbox: BBox, finestGroundM: number, maxSide: number): MercatorGrid {
  const [west, south, east, north] = bbox;
  if (!(east > west && north > south)) throw new RangeError('the quicklook extent is empty');
  if (east - west > 180) throw new RangeError('the quicklook extent spans more than 180° of longitude (crosses the antimeridian)');
  const [x0, yMin] = lonLatToMercator(west, south);
  const [x1, y0] = lonLatToMercator(east, north);
  // Mercator stretches ground distances by 1 / cos(latitude): finest pixel in Mercator metres at the middle latitude.
  const midLat = ((south + north) / 2) * (Math.PI / 180);
  const finest = finestGroundM / Math.cos(midLat);
  const pixel = Math.max(Math.max(x1 - x0, y0 - yMin) / maxSide, finest);
  const width = Math.max(1, Math.min(maxSide, Math.ceil((x1 - x0) / pixel - 1e-9)));
  const height = Math.max(1, Math.min(maxSide, Math.ceil((y0 - yMin) / pixel - 1e-9)));
  // West and north are the extent's own (not a round trip through Mercator, which could move them by 1e-15° and out of it).
  const [eastEdge, southEdge] = mercatorToLonLat(x0 + width * pixel, y0 - height * pixel);
  return { x0, y0, pixel, width, height, bounds: [west, Math.min(south, southEdge), Math.max(east, eastEdge), north] };
}

/** Output pixel (column, row) of a lon/lat point on the grid (pixel (0, 0) spans [0, 1) × [0, 1)). */
export function gridPixel(grid: MercatorGrid, lon: number, lat: number): [number, number] {
  const [x, y] = lonLatToMercator(lon, lat);
  return [(x - grid.x0) / grid.pixel, (grid.y0 - y) / grid.pixel];
}
