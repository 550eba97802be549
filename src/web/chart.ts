/**
 * A time-series cell's chart (docs/timeseries.md, `chart`): VV and VH in dB, the moving
 * average of the deviation's channel and its ±2σ band, change points marked. uPlot draws on
 * a canvas; the same values are offered as a table for screen readers.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { el } from './dom.ts';

export interface CellChart {
  dates: string[];
  vv: Array<number | null>;
  vh: Array<number | null>;
  channel: 'vv' | 'vh';
  movingAverage: Array<number | null>;
  band: { lower: Array<number | null>; upper: Array<number | null> };
  unit: string;
}

const num = (a: unknown, n: number): Array<number | null> =>
  Array.from({ length: n }, (_, i) => {
    const v = Array.isArray(a) ? a[i] : null;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  });

/** The chart member of a feature, checked: null when it is not a usable series. */
export function cellChart(value: unknown): CellChart | null {
  if (!value || typeof value !== 'object') return null;
  const c = value as Record<string, unknown>;
  if (!Array.isArray(c.dates) || c.dates.length === 0 || !c.dates.every((d) => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d))) return null;
  const n = c.dates.length;
  const band = (c.band ?? {}) as Record<string, unknown>;
  return {
    dates: c.dates as string[],
    vv: num(c.vv, n),
    vh: num(c.vh, n),
    channel: c.channel === 'vh' ? 'vh' : 'vv',
    movingAverage: num(c.movingAverage, n),
    band: { lower: num(band.lower, n), upper: num(band.upper, n) },
    unit: 'dB',
  };
}

export function renderChart(parent: HTMLElement, chart: CellChart, changePoints: string[], width: number): uPlot {
  const xs = chart.dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const channel = chart.channel.toUpperCase();
  const figure = el('figure', { class: 'chart' });
  parent.appendChild(figure);
  const plot = new uPlot(
    {
      width,
      height: 220,
      title: `Backscatter (${chart.unit})${changePoints.length ? ` · change points: ${changePoints.join(', ')}` : ''}`,
      scales: { x: { time: true } },
      series: [
        {},
        { label: 'VV', stroke: '#1f78b4', width: 1.5, spanGaps: true },
        { label: 'VH', stroke: '#33a02c', width: 1.5, spanGaps: true },
        { label: `moving average (${channel})`, stroke: '#555', width: 1, dash: [4, 3] },
        { label: `−2σ (${channel})`, stroke: '#bbb', width: 1 },
        { label: `+2σ (${channel})`, stroke: '#bbb', width: 1 },
      ],
      axes: [{}, { label: 'dB' }],
    },
    [xs, chart.vv, chart.vh, chart.movingAverage, chart.band.lower, chart.band.upper] as uPlot.AlignedData,
    figure,
  );
  figure.appendChild(el('figcaption', { class: 'visually-hidden' }, `Backscatter series of ${chart.dates.length} dates, ${chart.dates[0]} to ${chart.dates[chart.dates.length - 1]}`));
  // The numbers behind the canvas, for screen readers and copying.
  const table = el('table', { class: 'series' });
  table.appendChild(el('caption', {}, 'Series values (dB)'));
  table.appendChild(el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'date'), el('th', { scope: 'col' }, 'VV'), el('th', { scope: 'col' }, 'VH'), el('th', { scope: 'col' }, `moving average (${channel})`))));
  const body = el('tbody');
  chart.dates.forEach((d, i) => body.appendChild(el('tr', {}, el('td', {}, d), el('td', {}, chart.vv[i] ?? '—'), el('td', {}, chart.vh[i] ?? '—'), el('td', {}, chart.movingAverage[i] ?? '—'))));
  table.appendChild(body);
  const details = el('details', {}, el('summary', {}, 'Values'), table);
  parent.appendChild(details);
  return plot;
}
