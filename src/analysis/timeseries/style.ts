// simplestyle-spec 1.1.0 keys (`fill`, `fill-opacity`, `stroke`, `stroke-width`) for a time-
// series cell, from its deviation: a diverging scale (ColorBrewer RdBu, 7 classes, reversed
// so that brighter-than-usual is red and darker-than-usual is blue), symmetric around 0:
//
//   deviation      fill      fill-opacity   meaning
//   ≤ −3           #2166ac   0.75           much darker than usual (e.g. flooding, smooth water)
//   (−3, −2]       #67a9cf   0.6
//   (−2, −1]       #d1e5f0   0.45
//   (−1, 1)        #f7f7f7   0.3            within ±1 σ of the moving average
//   [1, 2)         #fddbc7   0.45
//   [2, 3)         #ef8a62   0.6
//   ≥ 3            #b2182b   0.75           much brighter than usual (e.g. new structures)
//   null           #bdbdbd   0.2            no deviation (no value at the last date, too short)
//
// Cell outlines: stroke #636363, stroke-width 0.5 (thin, so adjacent cells read as a surface).

export interface SimpleStyle {
  fill: string;
  'fill-opacity': number;
  stroke: string;
  'stroke-width': number;
}

export const STROKE = '#636363';
export const STROKE_WIDTH = 0.5;

/** The seven classes, darkest-blue to darkest-red (see the table above for their bounds). */
const CLASSES: ReadonlyArray<{ fill: string; opacity: number }> = [
  { fill: '#2166ac', opacity: 0.75 },
  { fill: '#67a9cf', opacity: 0.6 },
  { fill: '#d1e5f0', opacity: 0.45 },
  { fill: '#f7f7f7', opacity: 0.3 },
  { fill: '#fddbc7', opacity: 0.45 },
  { fill: '#ef8a62', opacity: 0.6 },
  { fill: '#b2182b', opacity: 0.75 },
];

export function deviationStyle(deviation: number | null): SimpleStyle {
  if (deviation === null || !Number.isFinite(deviation)) {
    return { fill: '#bdbdbd', 'fill-opacity': 0.2, stroke: STROKE, 'stroke-width': STROKE_WIDTH };
  }
  let k: number;
  if (deviation <= -3) k = 0;
  else if (deviation <= -2) k = 1;
  else if (deviation <= -1) k = 2;
  else if (deviation < 1) k = 3;
  else if (deviation < 2) k = 4;
  else if (deviation < 3) k = 5;
  else k = 6;
  const c = CLASSES[k]!;
  return { fill: c.fill, 'fill-opacity': c.opacity, stroke: STROKE, 'stroke-width': STROKE_WIDTH };
}
