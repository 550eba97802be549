// The area of interest in a raster's pixel space: its rings projected to (column, row)
// coordinates (whose bounds give its pixel window: engine/window.ts), and a scanline
// rasteriser that marks the pixels whose centre lies inside.
// Shared by the building-change, time-series and idle-farm drivers.
//
// Convention (as RasterProduct.lonLatToPixel): integer (row, col) is a pixel centre. AOI
// edges are straight in lon/lat (the geo library's convention), so each edge is densified
// before projection: in UTM a 1° edge bows by tens of metres.

import type { AoiGeometry, Position } from '../../geo/types.ts';

export interface PixelEdges {
  /** x1, y1, x2, y2 per edge (x = column, y = row, centre convention), edges with y1 ≠ y2 only. */
  edges: Float64Array;
  count: number;
  /** Bounds of all vertices (empty when there is no edge): engine/window.ts aoiWindow takes them. */
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

function densify(ring: readonly Position[], maxStepDeg: number): Position[] {
  const out: Position[] = [];
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i]!;
    const [x2, y2] = ring[i + 1]!;
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x2 - x1), Math.abs(y2 - y1)) / maxStepDeg));
    for (let k = 0; k < steps; k++) out.push([x1 + ((x2 - x1) * k) / steps, y1 + ((y2 - y1) * k) / steps]);
  }
  if (ring.length > 0) out.push(ring[ring.length - 1]!);
  return out;
}

function ringsOf(aoi: AoiGeometry): Position[][] {
  return aoi.type === 'Polygon' ? aoi.coordinates : aoi.coordinates.flat();
}

/**
 * The AOI's rings in pixel space (x = column, y = row), densified so that no edge spans more
 * than `maxStepDeg` in lon or lat before projection. Closed rings (last = first).
 */
export function aoiPixelRings(
  aoi: AoiGeometry,
  toPixel: (lon: number, lat: number) => { row: number; col: number },
  maxStepDeg = 0.005,
): Position[][] {
  return ringsOf(aoi).map((ring) =>
    densify(ring, maxStepDeg).map(([lon, lat]) => {
      const p = toPixel(lon, lat);
      return [p.col, p.row] as Position;
    }),
  );
}

/** Edges of pixel-space rings for rasterizeAoi (horizontal edges never cross a scanline: dropped). */
export function edgesOfRings(rings: readonly (readonly Position[])[]): PixelEdges {
  const list: number[] = [];
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const pts of rings) {
    for (let i = 0; i < pts.length; i++) {
      const [x, y] = pts[i]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (i + 1 < pts.length) {
        const [x2, y2] = pts[i + 1]!;
        if (y !== y2) list.push(x, y, x2, y2);
      }
    }
  }
  // No edge crosses a scanline: no pixel centre is inside, and the bounds say so (empty).
  if (list.length === 0) return { edges: new Float64Array(0), count: 0, minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  return { edges: Float64Array.from(list), count: list.length / 4, minX, minY, maxX, maxY };
}

/**
 * All rings of the AOI as pixel-space edges. `toPixel` is the raster's lonLatToPixel (or any
 * map from lon/lat to a pixel grid). `maxStepDeg` bounds the length of a densified edge.
 */
export function aoiPixelEdges(
  aoi: AoiGeometry,
  toPixel: (lon: number, lat: number) => { row: number; col: number },
  maxStepDeg = 0.005,
): PixelEdges {
  return edgesOfRings(aoiPixelRings(aoi, toPixel, maxStepDeg));
}

/**
 * 1 where the centre of pixel (row, col) of `window` lies inside the AOI (even–odd rule
 * over all rings: shells and holes; parts of a valid MultiPolygon do not overlap).
 * A pixel centre exactly on a vertical edge belongs to the pixel on its right-hand side.
 */
export function rasterizeAoi(
  edges: PixelEdges,
  window: { x0: number; y0: number; width: number; height: number },
  out: Uint8Array = new Uint8Array(window.width * window.height),
): Uint8Array {
  out.fill(0);
  const { x0, y0, width, height } = window;
  if (edges.count === 0 || edges.maxY < y0 || edges.minY > y0 + height - 1 || edges.maxX < x0 || edges.minX > x0 + width - 1) return out;
  // Each edge adds its crossing to every window row it spans: O(crossings), however many
  // edges the AOI has elsewhere.
  const e = edges.edges;
  const rows: number[][] = Array.from({ length: height }, () => []);
  for (let k = 0; k < edges.count; k++) {
    const xa = e[4 * k]!;
    const ya = e[4 * k + 1]!;
    const xb = e[4 * k + 2]!;
    const yb = e[4 * k + 3]!;
    // Rows y with min ≤ y < max (half-open, so a vertex shared by two edges counts once).
    const lo = Math.max(y0, Math.ceil(Math.min(ya, yb)));
    const hi = Math.min(y0 + height - 1, Math.ceil(Math.max(ya, yb)) - 1);
    const slope = (xb - xa) / (yb - ya);
    for (let y = lo; y <= hi; y++) rows[y - y0]!.push(xa + (y - ya) * slope);
  }
  for (let r = 0; r < height; r++) {
    const xs = rows[r]!;
    if (xs.length < 2) continue;
    xs.sort((a, b) => a - b);
    const base = r * width;
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const c0 = Math.max(x0, Math.ceil(xs[k]!));
      const c1 = Math.min(x0 + width, Math.ceil(xs[k + 1]!));
      for (let c = c0; c < c1; c++) out[base + c - x0] = 1;
    }
  }
  return out;
}
