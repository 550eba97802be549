// A field's season chart as a PNG (pngjs): VH, VV and VH/VV in dB against date, on one axis,
// with dB gridlines every 5 dB, month ticks, and a title line (field number, decision,
// probability). A small rasteriser of its own: 1-px lines (Bresenham), point markers and a
// 5 × 7 bitmap font for the few characters the labels use — no canvas dependency.

import { PNG } from 'pngjs';

export interface ChartSeries {
  label: string;
  /** RGB. */
  color: [number, number, number];
  /** dB, index-aligned with the chart's dates; NaN where no value. */
  values: ArrayLike<number>;
}

export interface ChartSpec {
  title: string;
  /** `YYYY-MM-DD`, ascending. */
  dates: readonly string[];
  series: ChartSeries[];
  width?: number;
  height?: number;
}

export const CHART_COLORS = {
  vh: [22, 140, 60] as [number, number, number],
  vv: [40, 90, 200] as [number, number, number],
  ratio: [220, 120, 20] as [number, number, number],
};

// 5 × 7 glyphs, rows top to bottom, '#' = ink.
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
  '.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
  '/': ['....#', '....#', '...#.', '..#..', '.#...', '#....', '#....'],
  '#': ['.#.#.', '.#.#.', '#####', '.#.#.', '#####', '.#.#.', '.#.#.'],
  '=': ['.....', '.....', '#####', '.....', '#####', '.....', '.....'],
  ' ': ['.....', '.....', '.....', '.....', '.....', '.....', '.....'],
  A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
  C: ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
  D: ['###..', '#..#.', '#...#', '#...#', '#...#', '#..#.', '###..'],
  E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
  H: ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  I: ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  L: ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
  N: ['#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#', '#...#'],
  O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  P: ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
  R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
  T: ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
  U: ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  V: ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
};

class Canvas {
  readonly png: PNG;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.png = new PNG({ width, height, colorType: 2 });
    this.png.data.fill(255);
  }

  set(x: number, y: number, [r, g, b]: readonly number[]): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = (y * this.width + x) * 4;
    this.png.data[i] = r!;
    this.png.data[i + 1] = g!;
    this.png.data[i + 2] = b!;
    this.png.data[i + 3] = 255;
  }

  line(x0: number, y0: number, x1: number, y1: number, color: readonly number[]): void {
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
      this.set(x0, y0, color);
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

  square(x: number, y: number, r: number, color: readonly number[]): void {
    for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) this.set(x + dx, y + dy, color);
  }

  /** Text with its top-left corner at (x, y); unknown characters are drawn as blanks. Returns the width drawn. */
  text(x: number, y: number, s: string, color: readonly number[]): number {
    let cx = x;
    for (const ch of s.toUpperCase()) {
      const glyph = GLYPHS[ch] ?? GLYPHS[' ']!;
      for (let r = 0; r < 7; r++) for (let c = 0; c < 5; c++) if (glyph[r]![c] === '#') this.set(cx + c, y + r, color);
      cx += 6;
    }
    return cx - x;
  }
}

const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** The chart as PNG bytes. */
export function renderChart(spec: ChartSpec): Buffer {
  const width = spec.width ?? 640;
  const height = spec.height ?? 300;
  const canvas = new Canvas(width, height);
  const ink = [30, 30, 30];
  const grid = [220, 220, 220];
  const plot = { left: 40, right: width - 10, top: 22, bottom: height - 34 };
  canvas.text(plot.left, 6, spec.title, ink);

  let lo = Infinity;
  let hi = -Infinity;
  for (const s of spec.series) for (let i = 0; i < s.values.length; i++) if (Number.isFinite(s.values[i])) ((lo = Math.min(lo, s.values[i]!)), (hi = Math.max(hi, s.values[i]!)));
  if (!Number.isFinite(lo)) ((lo = -25), (hi = 0));
  lo = Math.floor(lo / 5) * 5;
  hi = Math.max(lo + 5, Math.ceil(hi / 5) * 5);
  const d0 = spec.dates.length ? dayNumber(spec.dates[0]!) : 0;
  const d1 = spec.dates.length ? Math.max(d0 + 1, dayNumber(spec.dates[spec.dates.length - 1]!)) : 1;
  const px = (day: number) => plot.left + ((day - d0) / (d1 - d0)) * (plot.right - plot.left);
  const py = (db: number) => plot.bottom - ((db - lo) / (hi - lo)) * (plot.bottom - plot.top);

  for (let db = lo; db <= hi; db += 5) {
    canvas.line(plot.left, py(db), plot.right, py(db), grid);
    const label = String(db);
    canvas.text(plot.left - 4 - 6 * label.length, py(db) - 3, label, ink);
  }
  // Month ticks, a label (MM) on each; the year under January and the first month.
  const first = new Date(d0 * 86_400_000);
  for (let m = 0; ; m++) {
    const t = Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + m, 1) / 86_400_000;
    if (t > d1) break;
    if (t < d0) continue;
    const x = px(t);
    canvas.line(x, plot.top, x, plot.bottom, grid);
    canvas.line(x, plot.bottom, x, plot.bottom + 3, ink);
    const month = new Date(t * 86_400_000);
    canvas.text(x - 5, plot.bottom + 6, String(month.getUTCMonth() + 1).padStart(2, '0'), ink);
    if (month.getUTCMonth() === 0 || m <= 1) canvas.text(x - 11, plot.bottom + 16, String(month.getUTCFullYear()), ink);
  }
  canvas.line(plot.left, plot.top, plot.left, plot.bottom, ink);
  canvas.line(plot.left, plot.bottom, plot.right, plot.bottom, ink);
  canvas.text(2, height - 10, 'DB', ink);

  for (const s of spec.series) {
    let prev: [number, number] | null = null;
    for (let i = 0; i < spec.dates.length; i++) {
      const v = s.values[i]!;
      if (!Number.isFinite(v)) continue;
      const p: [number, number] = [px(dayNumber(spec.dates[i]!)), py(v)];
      if (prev) canvas.line(prev[0], prev[1], p[0], p[1], s.color);
      canvas.square(p[0], p[1], 1, s.color);
      prev = p;
    }
  }
  // Legend, top right.
  let x = plot.right - spec.series.reduce((w, s) => w + 6 * s.label.length + 22, 0);
  for (const s of spec.series) {
    canvas.line(x, 10, x + 10, 10, s.color);
    canvas.line(x, 9, x + 10, 9, s.color);
    x += 14 + canvas.text(x + 14, 6, s.label, s.color) + 8;
  }
  // No row filters + the default deflate strategy: line art on white compresses best this way and encodes twice as fast as the adaptive filters.
  return PNG.sync.write(canvas.png, { colorType: 2, filterType: 0, deflateStrategy: 0, deflateLevel: 6 });
}
