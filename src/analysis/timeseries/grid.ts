// The time-series grid: square cells of `cellSizeM` in the raster's UTM CRS, aligned to
// multiples of the cell size (so the same AOI always gets the same cells, and cells of
// neighbouring requests line up), kept where they meet the AOI and clipped to it.
//
// Cells are squares in UTM, not in lon/lat: the RTC pixels they average are on the UTM
// grid, so a cell holds whole pixels (100 m = 10 × 10 pixels of 10 m) except at the AOI
// boundary. Cell outlines are returned in lon/lat (4 corners; a 100 m edge bends by far
// less than the 1e-7° the result is rounded to).

import { intersectAoi } from '../../geo/clip.ts';
import type { AoiGeometry, Polygon, Position } from '../../geo/types.ts';
import { lonLatTransform, type LonLatTransform } from '../../imagery/rtc/projection.ts';
import { aoiPixelRings, edgesOfRings, rasterizeAoi } from '../change/aoiMask.ts';

export const DEFAULT_CELL_SIZE_M = 100;

export interface GridCell {
  /** Index in `CellGrid.cells`. */
  index: number;
  /** Grid row (north to south) and column (west to east). */
  row: number;
  col: number;
  /** Lon/lat outline, clipped to the AOI. */
  geometry: Polygon;
  /** True when the AOI boundary crosses the cell (the outline is not the full square). */
  clipped: boolean;
}

export interface CellGrid {
  epsg: number;
  cellSizeM: number;
  /** Map coordinates of the grid's north-west corner (multiples of cellSizeM). */
  originX: number;
  originY: number;
  rows: number;
  cols: number;
  cells: GridCell[];
  /** rows × cols: index into `cells`, −1 where the square misses the AOI. */
  cellAt: Int32Array;
  transform: LonLatTransform;
}

/** Cell index of a point in the grid's map coordinates, −1 when none. */
export function cellOfMapPoint(grid: CellGrid, x: number, y: number): number {
  const col = Math.floor((x - grid.originX) / grid.cellSizeM);
  const row = Math.floor((grid.originY - y) / grid.cellSizeM);
  if (row < 0 || col < 0 || row >= grid.rows || col >= grid.cols) return -1;
  return grid.cellAt[row * grid.cols + col]!;
}

/**
 * The cells of a regular grid of `cellSizeM` metres in UTM `epsg` that meet the AOI,
 * clipped to it. Cells whose clipped part has no area are left out.
 */
export function buildCellGrid(aoi: AoiGeometry, epsg: number, cellSizeM = DEFAULT_CELL_SIZE_M): CellGrid {
  if (!(cellSizeM > 0) || !Number.isFinite(cellSizeM)) throw new RangeError(`cellSizeM must be a positive number, got ${cellSizeM}`);
  const transform = lonLatTransform(epsg);
  // AOI in map coordinates (densified: AOI edges are straight in lon/lat, not in UTM).
  const mapRings = aoiPixelRings(aoi, (lon, lat) => {
    const [x, y] = transform.fromLonLat(lon, lat);
    return { col: x, row: y };
  }, Math.min(0.005, cellSizeM / 200_000));
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const ring of mapRings) {
    for (const [x, y] of ring) {
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  const s = cellSizeM;
  const originX = Math.floor(minX / s) * s;
  const originY = Math.ceil(maxY / s) * s;
  const cols = Math.max(1, Math.ceil((maxX - originX) / s));
  const rows = Math.max(1, Math.ceil((originY - minY) / s));
  // The AOI in cell units with the centre convention of rasterizeAoi: cell (r, c) spans
  // [c − 0.5, c + 0.5] × [r − 0.5, r + 0.5].
  const toCell = ([x, y]: Position): Position => [(x - originX) / s - 0.5, (originY - y) / s - 0.5];
  const cellRings = mapRings.map((ring) => ring.map(toCell));
  const centreInside = rasterizeAoi(edgesOfRings(cellRings), { x0: 0, y0: 0, width: cols, height: rows });

  // Cells the boundary passes through: every cell an edge's bounding box touches (edges are
  // densified to less than a cell, so this is a thin band along the boundary).
  const boundary = new Uint8Array(rows * cols);
  for (const ring of cellRings) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [x1, y1] = ring[i]!;
      const [x2, y2] = ring[i + 1]!;
      const c0 = Math.max(0, Math.floor(Math.min(x1, x2) + 0.5));
      const c1 = Math.min(cols - 1, Math.floor(Math.max(x1, x2) + 0.5));
      const r0 = Math.max(0, Math.floor(Math.min(y1, y2) + 0.5));
      const r1 = Math.min(rows - 1, Math.floor(Math.max(y1, y2) + 0.5));
      for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) boundary[r * cols + c] = 1;
    }
  }

  const mapAoi: AoiGeometry =
    aoi.type === 'Polygon'
      ? { type: 'Polygon', coordinates: splitRings(aoi.coordinates.length, mapRings) }
      : { type: 'MultiPolygon', coordinates: groupRings(aoi.coordinates.map((p) => p.length), mapRings) };
  const toLonLat = ([x, y]: Position): Position => transform.toLonLat(x, y);
  const square = (r: number, c: number): Position[] => {
    const x0 = originX + c * s;
    const y0 = originY - r * s;
    return [
      [x0, y0 - s],
      [x0 + s, y0 - s],
      [x0 + s, y0],
      [x0, y0],
      [x0, y0 - s],
    ];
  };

  const cellAt = new Int32Array(rows * cols).fill(-1);
  const cells: GridCell[] = [];
  for (let r = 0; r < rows; r++) {
    // The AOI cut to this row of cells first: each boundary cell is then clipped against a
    // small piece instead of the whole AOI.
    let rowPiece: AoiGeometry | null | undefined;
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      if (!boundary[k]) {
        if (!centreInside[k]) continue;
        cellAt[k] = cells.length;
        cells.push({ index: cells.length, row: r, col: c, geometry: { type: 'Polygon', coordinates: [square(r, c).map(toLonLat)] }, clipped: false });
        continue;
      }
      if (rowPiece === undefined) {
        const y0 = originY - r * s;
        const band: Polygon = {
          type: 'Polygon',
          coordinates: [
            [
              [originX, y0 - s],
              [originX + cols * s, y0 - s],
              [originX + cols * s, y0],
              [originX, y0],
              [originX, y0 - s],
            ],
          ],
        };
        rowPiece = intersectAoi(mapAoi, band);
      }
      if (!rowPiece) continue;
      const clipped = intersectAoi(rowPiece, { type: 'Polygon', coordinates: [square(r, c)] });
      if (!clipped) continue;
      const part = largestPart(clipped);
      if (!part || planarArea(part.coordinates[0]!) < 1e-6 * s * s) continue;
      cellAt[k] = cells.length;
      cells.push({
        index: cells.length,
        row: r,
        col: c,
        geometry: { type: 'Polygon', coordinates: part.coordinates.map((ring) => ring.map(toLonLat)) },
        clipped: true,
      });
    }
  }
  return { epsg, cellSizeM: s, originX, originY, rows, cols, cells, cellAt, transform };
}

function splitRings(count: number, rings: Position[][]): Position[][] {
  return rings.slice(0, count);
}

function groupRings(counts: number[], rings: Position[][]): Position[][][] {
  const out: Position[][][] = [];
  let k = 0;
  for (const n of counts) {
    out.push(rings.slice(k, k + n));
    k += n;
  }
  return out;
}

function planarArea(ring: readonly Position[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return Math.abs(a) / 2;
}

/**
 * A cell cut in two by a narrow notch of the AOI keeps its larger piece: one Feature per
 * cell, and the smaller piece is a sliver at the boundary.
 */
function largestPart(geom: AoiGeometry): Polygon | null {
  if (geom.type === 'Polygon') return geom;
  let best: Polygon | null = null;
  let bestArea = -1;
  for (const coordinates of geom.coordinates) {
    const a = planarArea(coordinates[0]!);
    if (a > bestArea) {
      bestArea = a;
      best = { type: 'Polygon', coordinates };
    }
  }
  return best;
}
