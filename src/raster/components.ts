// Connected-component labelling of a raster (row-major, width × height): the one flood fill
// behind vectorisation (geo/vectorize.ts), ship clusters (analysis/ship/cluster.ts), change
// regions (analysis/change/tile.ts) and dark spots.
//
// Deterministic: components are numbered in the order of their start pixels (every pixel in
// raster order, or the seeds in the order given), and each component's pixels are listed in
// the order the flood fill visits them: a depth-first fill with an explicit stack, whose
// neighbours are pushed in raster order of the 3 × 3 neighbourhood (row above left to right,
// then the row itself, then the row below). Callers that sum floating-point measurements over
// the pixels in that order (ship shapes) or scan them for holes (vectorize) depend on it, so
// it is part of the contract and pinned by test/raster/components.test.ts.
//
// Cost: O(pixels labelled) plus one visited byte per raster pixel. With a ComponentScratch the
// byte map, stack and pixel list are reused across calls and the map is cleared pixel by pixel
// afterwards, so a call on a large, sparsely set raster (ship tiles, driven by seeds) costs what
// its components cost, not what the raster does.

export type Connectivity = 4 | 8;

export interface ComponentOptions {
  /** 8 (default): pixels touching at a corner are connected; 4: only across an edge. */
  connectivity?: Connectivity;
  /**
   * Which neighbours join: 'nonzero' (default), every non-zero value joins every other (a
   * mask, whatever its non-zero codes); 'equal', only equal non-zero values (a label image).
   */
  join?: 'nonzero' | 'equal';
  /**
   * Start pixels, in the order components are to be found; only components holding a seed are
   * labelled. Zero-valued seeds and seeds already in a component are skipped. Default: every
   * pixel in raster order (all components, numbered by their first pixel in raster order).
   */
  seeds?: ArrayLike<number>;
  /** Reusable buffers (one per thread). */
  scratch?: ComponentScratch;
}

export interface Components {
  /** Number of components. */
  count: number;
  /**
   * Linear pixel indices (row · width + col) of every component, component after component,
   * each in flood-fill order. Component k (0-based) is pixels[offsets[k]] … pixels[offsets[k + 1] − 1].
   */
  pixels: Int32Array;
  /** count + 1 offsets into `pixels`. */
  offsets: Int32Array;
}

/** Buffers reused across calls: a visited map (kept all-zero between calls), the stack and the pixel list. */
export class ComponentScratch {
  visited: Uint8Array = new Uint8Array(0);
  stack: Int32Array = new Int32Array(0);
  pixels: Int32Array = new Int32Array(0);
}

/**
 * Connected components of the non-zero pixels of `values` (see the file comment for the order
 * guarantees). NaN is non-zero; with join 'equal' a NaN pixel is a component of its own.
 */
export function connectedComponents(values: ArrayLike<number>, width: number, height: number, options: ComponentOptions = {}): Components {
  const n = width * height;
  if (values.length !== n) throw new RangeError(`connectedComponents: ${values.length} values for a ${width} × ${height} raster`);
  const eight = options.connectivity !== 4;
  const equal = options.join === 'equal';
  const scratch = options.scratch;
  let visited: Uint8Array;
  if (scratch) {
    if (scratch.visited.length < n) scratch.visited = new Uint8Array(n);
    visited = scratch.visited;
  } else {
    visited = new Uint8Array(n);
  }
  let stack: Int32Array = scratch ? scratch.stack : new Int32Array(0);
  let pixels: Int32Array = scratch ? scratch.pixels : new Int32Array(0);
  let used = 0;
  const offsets: number[] = [0];

  const grow = (start: number): void => {
    const value = values[start]!;
    let top = 0;
    if (stack.length < 1) stack = new Int32Array(1024);
    stack[top++] = start;
    visited[start] = 1;
    while (top > 0) {
      const p = stack[--top]!;
      if (used === pixels.length) pixels = enlarge(pixels, used + 1);
      pixels[used++] = p;
      const row = (p / width) | 0;
      const col = p - row * width;
      for (let dr = -1; dr <= 1; dr++) {
        const r = row + dr;
        if (r < 0 || r >= height) continue;
        for (let dc = -1; dc <= 1; dc++) {
          if (!eight && dr !== 0 && dc !== 0) continue;
          const c = col + dc;
          if (c < 0 || c >= width) continue;
          const q = r * width + c;
          if (visited[q] !== 0) continue;
          const v = values[q]!;
          if (equal ? v !== value : v === 0) continue;
          visited[q] = 1;
          if (top === stack.length) stack = enlarge(stack, top + 1);
          stack[top++] = q;
        }
      }
    }
    offsets.push(used);
  };

  const seeds = options.seeds;
  if (seeds) {
    // Checked before any pixel is marked, so a scratch's visited map stays clean on a throw.
    for (let k = 0; k < seeds.length; k++) {
      const s = seeds[k]!;
      if (!(s >= 0 && s < n) || s !== Math.floor(s)) throw new RangeError(`connectedComponents: seed ${s} outside the ${width} × ${height} raster`);
    }
    for (let k = 0; k < seeds.length; k++) {
      const s = seeds[k]!;
      if (visited[s] === 0 && values[s] !== 0) grow(s);
    }
  } else {
    for (let s = 0; s < n; s++) if (visited[s] === 0 && values[s] !== 0) grow(s);
  }

  const out = pixels.slice(0, used);
  if (scratch) {
    for (let k = 0; k < used; k++) visited[out[k]!] = 0;
    scratch.stack = stack;
    scratch.pixels = pixels;
  }
  return { count: offsets.length - 1, pixels: out, offsets: Int32Array.from(offsets) };
}

/** Component ids per pixel: 1 … count in component order, 0 outside every component. */
export function componentLabels(components: Components, n: number, out: Int32Array = new Int32Array(n)): Int32Array {
  if (out.length !== n) throw new RangeError(`componentLabels: output holds ${out.length} values, expected ${n}`);
  out.fill(0);
  const { pixels, offsets } = components;
  for (let k = 0; k < components.count; k++) {
    for (let i = offsets[k]!; i < offsets[k + 1]!; i++) out[pixels[i]!] = k + 1;
  }
  return out;
}

function enlarge(a: Int32Array, need: number): Int32Array {
  const b = new Int32Array(Math.max(need, 2 * a.length, 1024));
  b.set(a);
  return b;
}
