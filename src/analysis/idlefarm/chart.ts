// A field's season chart as a PNG (pngjs): VH, VV and VH/VV in dB against date, on one axis,
// with dB gridlines every 5 dB, month ticks, and a title line (field number, decision,
// probability), drawn on the service's small canvas (src/raster/canvas.ts: 1-px lines, point
// markers, a 5 × 7 bitmap font) — no canvas dependency.

import { Canvas } from '../../raster/canvas.ts';

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

const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** The chart as PNG bytes. */
export function renderChart(spec: ChartSpec): Buffer {
  const width = spec.width ?? 640;
  const height = spec.height ?? 300;
  const canvas = new Canvas(width, height, [255, 255, 255, 255]);
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
  return canvas.encode({ colorType: 2, filterType: 0, deflateStrategy: 0, deflateLevel: 6 });
}
