// A change tile's regions as polygons: each region traced to its pixel-exact outline in lon/lat
// (geo/vectorize.ts) and, where it reaches the AOI boundary, clipped to the AOI. A region
// belongs to one tile (tile.ts: the centroid rule) and its outline depends on that tile's
// window, the reference raster's geolocation and the AOI alone, so a tile's polygons can be
// made wherever the tile ran — on the calling thread, a pool thread, or another worker process
// (pairTile.ts) — and come out the same bit for bit. Each is written as the result writes it
// (common/result.ts resultPolygon: rounded, oriented, its geodesic area), also a function of the
// polygon alone, so the coordinator of a job spread over workers only orders them (issue 20 §2).
// Packed (TileDetections) they cross a thread or the queue as typed arrays, in the layout
// detect.ts keeps them in.

import { intersectAoi } from '../../geo/clip.ts';
import type { AoiGeometry, Polygon, Position } from '../../geo/types.ts';
import { maskToPolygons } from '../../geo/vectorize.ts';
import { resultPolygon } from '../common/result.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import type { ChangeRegion, ChangeTileResult } from './tile.ts';

/** The part of a raster a tile's polygons need: its size and its pixel → lon/lat. */
export interface PolygonGrid {
  width: number;
  height: number;
  pixelToLonLat(row: number, col: number): Position;
}

/**
 * A tile's detections as the result writes them (resultPolygon; those it drops are not here),
 * packed: per polygon [ring count, ring lengths…, lon, lat, lon, lat, …] one after the other in
 * `coords`, its region's confidence (NaN: null) in `confidence` and its geodesic area (m²) in `area`.
 */
export interface TileDetections {
  count: number;
  coords: Float64Array;
  confidence: Float64Array;
  area: Float64Array;
  /** Regions of the tile, and of those cut by the tile window (not the image's edge). */
  regions: number;
  truncatedRegions: number;
}

/** Every region of `out` as polygons in plan order of regions, packed; `inside` is the tile window's AOI mask. */
export function tileDetections(out: ChangeTileResult, window: PixelWindow, inside: Uint8Array, grid: PolygonGrid, aoi: AoiGeometry): TileDetections {
  const polygons: Polygon[] = [];
  const confidences: number[] = [];
  const areas: number[] = [];
  let truncatedRegions = 0;
  let size = 0;
  for (const r of out.regions) {
    if (r.touchesTileEdge && !touchesImageEdge(r, window, grid)) truncatedRegions++;
    for (const traced of regionPolygons(r, window, inside, grid, aoi)) {
      const made = resultPolygon(traced);
      if (!made) continue;
      const { geometry } = made;
      polygons.push(geometry);
      confidences.push(r.confidence === null ? Number.NaN : r.confidence);
      areas.push(made.area);
      size += 1 + geometry.coordinates.length;
      for (const ring of geometry.coordinates) size += 2 * ring.length;
    }
  }
  const coords = new Float64Array(size);
  let k = 0;
  for (const { coordinates } of polygons) {
    coords[k++] = coordinates.length;
    for (const ring of coordinates) coords[k++] = ring.length;
    for (const ring of coordinates) {
      for (const [lon, lat] of ring) {
        coords[k++] = lon;
        coords[k++] = lat;
      }
    }
  }
  return { count: polygons.length, coords, confidence: Float64Array.from(confidences), area: Float64Array.from(areas), regions: out.regions.length, truncatedRegions };
}

function touchesImageEdge(r: ChangeRegion, w: PixelWindow, raster: PolygonGrid): boolean {
  return (
    (r.box.x0 === 0 && w.x0 === 0) ||
    (r.box.y0 === 0 && w.y0 === 0) ||
    (r.box.x1 === w.width - 1 && w.x0 + w.width === raster.width) ||
    (r.box.y1 === w.height - 1 && w.y0 + w.height === raster.height)
  );
}

/**
 * The region's pixel-exact outline in lon/lat; clipped to the AOI when one of its pixels has
 * a neighbour outside the AOI (a pixel square reaches up to half a pixel past its centre).
 */
function regionPolygons(r: ChangeRegion, w: PixelWindow, inside: Uint8Array, raster: PolygonGrid, aoi: AoiGeometry): Polygon[] {
  const bw = r.box.x1 - r.box.x0 + 1;
  const bh = r.box.y1 - r.box.y0 + 1;
  const labels = new Uint8Array(bw * bh);
  let nearBoundary = false;
  for (const p of r.pixels) {
    const row = (p / w.width) | 0;
    const col = p - row * w.width;
    labels[(row - r.box.y0) * bw + (col - r.box.x0)] = 1;
    for (let dy = -1; dy <= 1 && !nearBoundary; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const rr = row + dy;
        const cc = col + dx;
        if (rr < 0 || cc < 0 || rr >= w.height || cc >= w.width || !inside[rr * w.width + cc]) {
          nearBoundary = true;
          break;
        }
      }
    }
  }
  const oy = w.y0 + r.box.y0;
  const ox = w.x0 + r.box.x0;
  const traced = maskToPolygons(labels, bw, bh, (row, col) => raster.pixelToLonLat(oy + row, ox + col)).map((t) => t.geometry);
  if (!nearBoundary) return traced;
  const out: Polygon[] = [];
  for (const geometry of traced) {
    const clipped = intersectAoi(geometry, aoi);
    if (!clipped) continue;
    if (clipped.type === 'Polygon') out.push(clipped);
    else for (const coordinates of clipped.coordinates) out.push({ type: 'Polygon', coordinates });
  }
  return out;
}
