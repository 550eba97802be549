// Chamfer distance over a grid (rows × cols, row-major): the one two-pass 8-neighbour distance
// transform behind the ship detector's near-shore band (analysis/ship/nearShore.ts) and the
// sea/land segmenter's distance to land (analysis/ship/seaLand.ts). Imports nothing.

/**
 * Relaxes `d` in place to the chamfer distance from its seeds: each cell ends at the least of
 * its own value and a neighbour's plus the step to it (`dy` along a column, `dx` along a row,
 * their hypotenuse diagonally), two passes (forward, then backward). Seeds are 0; other cells
 * start at the cap (a cap below Infinity bounds the result) or Infinity.
 */
export function chamferInPlace(d: Float32Array, rows: number, cols: number, dy: number, dx: number): Float32Array {
  const dd = Math.hypot(dx, dy);
  const relax = (k: number, r: number, c: number, step: number) => {
    if (r < 0 || r >= rows || c < 0 || c >= cols) return;
    const v = d[r * cols + c]! + step;
    if (v < d[k]!) d[k] = v;
  };
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      relax(k, r - 1, c - 1, dd);
      relax(k, r - 1, c, dy);
      relax(k, r - 1, c + 1, dd);
      relax(k, r, c - 1, dx);
    }
  for (let r = rows - 1; r >= 0; r--)
    for (let c = cols - 1; c >= 0; c--) {
      const k = r * cols + c;
      relax(k, r + 1, c + 1, dd);
      relax(k, r + 1, c, dy);
      relax(k, r + 1, c - 1, dd);
      relax(k, r, c + 1, dx);
    }
  return d;
}
