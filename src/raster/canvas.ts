// An RGBA drawing surface for the service's own pictures (idle-farm charts, quicklooks): pixels,
// 1-px lines (Bresenham), thick lines, polygon outlines and even-odd fills, and a 5 × 7 bitmap
// font, encoded as PNG with pngjs. Small on purpose: no canvas dependency, runs on a worker
// thread as well as on the main one.

import { PNG, type PNGOptions } from 'pngjs';

/** RGB, or RGBA (alpha 255 when left out). */
export type Colour = readonly number[];

// 5 × 7 glyphs, rows top to bottom, '#' = ink. Upper case only: text is drawn upper-cased.
const GLYPHS: Record<string, string[]> = {
  '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  '3': ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  '6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  '9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
  '-': ['.....', '.....', '.....', '#####', '.....', '.....', '.....'],
  '+': ['.....', '..#..', '..#..', '#####', '..#..', '..#..', '.....'],
  '.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
  ',': ['.....', '.....', '.....', '.....', '.##..', '..#..', '.#...'],
  ':': ['.....', '.##..', '.##..', '.....', '.##..', '.##..', '.....'],
  '/': ['....#', '....#', '...#.', '..#..', '.#...', '#....', '#....'],
  '#': ['.#.#.', '.#.#.', '#####', '.#.#.', '#####', '.#.#.', '.#.#.'],
  '=': ['.....', '.....', '#####', '.....', '#####', '.....', '.....'],
  '<': ['...#.', '..#..', '.#...', '#....', '.#...', '..#..', '...#.'],
  '>': ['.#...', '..#..', '...#.', '....#', '...#.', '..#..', '.#...'],
  '(': ['...#.', '..#..', '.#...', '.#...', '.#...', '..#..', '...#.'],
  ')': ['.#...', '..#..', '...#.', '...#.', '...#.', '..#..', '.#...'],
  '%': ['##...', '##..#', '...#.', '..#..', '.#...', '#..##', '...##'],
  ' ': ['.....', '.....', '.....', '.....', '.....', '.....', '.....'],
  A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
  C: ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
  D: ['###..', '#..#.', '#...#', '#...#', '#...#', '#..#.', '###..'],
  E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
  F: ['#####', '#....', '#....', '####.', '#....', '#....', '#....'],
  G: ['.###.', '#...#', '#....', '#.###', '#...#', '#...#', '.####'],
  H: ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  I: ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  J: ['..###', '...#.', '...#.', '...#.', '...#.', '#..#.', '.##..'],
  K: ['#...#', '#..#.', '#.#..', '##...', '#.#..', '#..#.', '#...#'],
  L: ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
  M: ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
  N: ['#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#', '#...#'],
  O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  P: ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
  Q: ['.###.', '#...#', '#...#', '#...#', '#.#.#', '#..#.', '.##.#'],
  R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
  S: ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
  T: ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
  U: ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  V: ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
  W: ['#...#', '#...#', '#...#', '#.#.#', '#.#.#', '#.#.#', '.#.#.'],
  X: ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
  Y: ['#...#', '#...#', '.#.#.', '..#..', '..#..', '..#..', '..#..'],
  Z: ['#####', '....#', '...#.', '..#..', '.#...', '#....', '#####'],
};

/** Width in pixels of `s` drawn by Canvas.text (6 px a character, the last one's gap included). */
export function textWidth(s: string): number {
  return 6 * [...s].length;
}

export class Canvas {
  readonly png: PNG;

  /** A width × height surface filled with `background` (RGBA; default transparent). */
  constructor(
    readonly width: number,
    readonly height: number,
    background: Colour = [0, 0, 0, 0],
  ) {
    this.png = new PNG({ width, height });
    const [r = 0, g = 0, b = 0, a = 255] = background;
    const data = this.png.data;
    if (r === 0 && g === 0 && b === 0 && a === 0) return; // pngjs hands over zeroed pixels
    for (let i = 0; i < data.length; i += 4) {
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
      data[i + 3] = a;
    }
  }

  /** The RGBA bytes, row-major. */
  get data(): Buffer {
    return this.png.data;
  }

  set(x: number, y: number, colour: Colour): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = (y * this.width + x) * 4;
    const d = this.png.data;
    d[i] = colour[0]!;
    d[i + 1] = colour[1]!;
    d[i + 2] = colour[2]!;
    d[i + 3] = colour[3] ?? 255;
  }

  line(x0: number, y0: number, x1: number, y1: number, colour: Colour): void {
    x0 = Math.round(x0);
    y0 = Math.round(y0);
    x1 = Math.round(x1);
    y1 = Math.round(y1);
    const dx = Math.abs(x1 - x0);
    const dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1;
    const sy = y0 < y1 ? 1 : -1;
    let err = dx + dy;
    for (;;) {
      this.set(x0, y0, colour);
      if (x0 === x1 && y0 === y1) return;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }

  /** A line `width` pixels wide: the 1-px line repeated across its normal. */
  thickLine(x0: number, y0: number, x1: number, y1: number, width: number, colour: Colour): void {
    if (width <= 1) {
      this.line(x0, y0, x1, y1, colour);
      return;
    }
    // Offsets along the axis closer to the line's normal keep the stroke gap-free.
    const steep = Math.abs(y1 - y0) > Math.abs(x1 - x0);
    for (let k = 0; k < width; k++) {
      const o = k - (width - 1) / 2;
      if (steep) this.line(x0 + o, y0, x1 + o, y1, colour);
      else this.line(x0, y0 + o, x1, y1 + o, colour);
    }
  }

  /** A filled square of half-size r around (x, y). */
  square(x: number, y: number, r: number, colour: Colour): void {
    for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) this.set(x + dx, y + dy, colour);
  }

  /** The outline of a square of half-size r around (x, y), `width` pixels thick. */
  squareOutline(x: number, y: number, r: number, width: number, colour: Colour): void {
    x = Math.round(x);
    y = Math.round(y);
    for (let k = 0; k < width; k++) {
      const s = r - k;
      if (s < 0) break;
      this.line(x - s, y - s, x + s, y - s, colour);
      this.line(x + s, y - s, x + s, y + s, colour);
      this.line(x + s, y + s, x - s, y + s, colour);
      this.line(x - s, y + s, x - s, y - s, colour);
    }
  }

  /** The closed ring's edges; `ring` holds x, y pairs. */
  ringOutline(ring: ArrayLike<number>, width: number, colour: Colour): void {
    const n = ring.length / 2;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      this.thickLine(ring[2 * i]!, ring[2 * i + 1]!, ring[2 * j]!, ring[2 * j + 1]!, width, colour);
    }
  }

  /** Fills the polygon (even-odd over all its rings, x, y pairs in pixel units) with `colour`. */
  fillRings(rings: ArrayLike<number>[], colour: Colour): void {
    fillRingSpans(rings, this.width, this.height, (y, xa, xb) => {
      for (let x = xa; x < xb; x++) this.set(x, y, colour);
    });
  }

  /** Text with its top-left corner at (x, y), `scale` pixels a font pixel; unknown characters are blanks. Returns the width drawn. */
  text(x: number, y: number, s: string, colour: Colour, scale = 1): number {
    let cx = x;
    for (const ch of s.toUpperCase()) {
      const glyph = GLYPHS[ch] ?? GLYPHS[' ']!;
      for (let r = 0; r < 7; r++) {
        for (let c = 0; c < 5; c++) {
          if (glyph[r]![c] !== '#') continue;
          for (let dy = 0; dy < scale; dy++) for (let dx = 0; dx < scale; dx++) this.set(cx + c * scale + dx, y + r * scale + dy, colour);
        }
      }
      cx += 6 * scale;
    }
    return cx - x;
  }

  /** PNG bytes (RGBA unless `options.colorType` says otherwise). */
  encode(options: PNGOptions = {}): Buffer {
    return PNG.sync.write(this.png, options);
  }
}

/**
 * Calls `span(y, xa, xb)` for the pixels [xa, xb) of each row y whose centre (x + 0.5, y + 0.5)
 * lies inside the polygon (even-odd rule over all `rings`, x, y pairs in pixel units), clipped
 * to width × height: the scanline fill behind Canvas.fillRings and raster masks.
 */
export function fillRingSpans(rings: ArrayLike<number>[], width: number, height: number, span: (y: number, xa: number, xb: number) => void): void {
  let minY = Infinity;
  let maxY = -Infinity;
  for (const ring of rings) {
    for (let i = 1; i < ring.length; i += 2) {
      minY = Math.min(minY, ring[i]!);
      maxY = Math.max(maxY, ring[i]!);
    }
  }
  if (!(maxY >= minY)) return;
  const y0 = Math.max(0, Math.floor(minY - 0.5));
  const y1 = Math.min(height - 1, Math.ceil(maxY));
  const xs: number[] = [];
  for (let y = y0; y <= y1; y++) {
    const cy = y + 0.5;
    xs.length = 0;
    for (const ring of rings) {
      const n = ring.length / 2;
      for (let i = 0; i < n; i++) {
        const j = (i + 1) % n;
        const ay = ring[2 * i + 1]!;
        const by = ring[2 * j + 1]!;
        if (ay <= cy === by <= cy) continue;
        const ax = ring[2 * i]!;
        const bx = ring[2 * j]!;
        xs.push(ax + ((cy - ay) / (by - ay)) * (bx - ax));
      }
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      // Pixel x is inside when its centre x + 0.5 lies in [xs[k], xs[k+1]).
      const xa = Math.max(0, Math.ceil(xs[k]! - 0.5));
      const xb = Math.min(width, Math.ceil(xs[k + 1]! - 0.5));
      if (xb > xa) span(y, xa, xb);
    }
  }
}
