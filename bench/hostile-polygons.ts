/**
 * The request polygons of issue 10 item 1, as WKT: shapes that made validation quadratic
 * (every pair of parts, every pair of edges compared) and stopped the service. Shared by
 * bench/validation.ts and the regression tests; all lie over the North Sea, where the test
 * and demo catalogs have scenes, so a preview also runs scene selection and clipping.
 */

const fixed = (v: number, decimals: number): string => {
  const text = v.toFixed(decimals);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
};

/**
 * `count` thin parallelograms, all slanted the same way and each offset a little to the east
 * of the last, so every part's bounding box overlaps every other's (the parts never touch).
 * 1,200 strips ≈ 92 KB; 13,000 strips ≈ 1 MB.
 */
export function slantedStripsWkt(count: number): string {
  const step = 0.6 / count; // all offsets within 0.6°, each strip 1° wide at the top
  const width = step / 2;
  const decimals = Math.max(6, Math.ceil(-Math.log10(width)) + 1);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const x0 = 2 + i * step;
    const x1 = x0 + width;
    const p = (x: number, y: number) => `${fixed(x, decimals)} ${fixed(y, 1)}`;
    parts.push(`((${p(x0, 51)}, ${p(x1, 51)}, ${p(x1 + 1, 51.6)}, ${p(x0 + 1, 51.6)}, ${p(x0, 51)}))`);
  }
  return `MULTIPOLYGON (${parts.join(', ')})`;
}

/**
 * One ring shaped like a comb: a north–south spine with `teeth` sawteeth pointing east,
 * each 1° long and a few metres apart, so an x-sweep has every tooth's edges active at
 * once. 20,000 teeth ≈ 625 KB.
 */
export function combWkt(teeth: number): string {
  const pitch = 0.5 / teeth;
  const decimals = Math.max(6, Math.ceil(-Math.log10(pitch / 2)) + 1);
  const p = (x: number, y: number) => `${fixed(x, 1)} ${fixed(y, decimals)}`;
  const positions: string[] = [p(2, 51)];
  for (let i = 0; i < teeth; i++) {
    positions.push(p(2.2, 51 + i * pitch), p(3.2, 51 + (i + 0.5) * pitch));
  }
  positions.push(p(2.2, 51.5), p(2, 51.5), p(2, 51));
  return `POLYGON ((${positions.join(', ')}))`;
}

/** A circle of `vertices` positions (6 decimals, radius `radiusDeg`): a big but honest AOI. */
export function circleWkt(vertices: number, radiusDeg = 0.4, center: [number, number] = [3, 52]): string {
  const positions: string[] = [];
  for (let i = 0; i < vertices; i++) {
    const a = (2 * Math.PI * i) / vertices;
    positions.push(`${(center[0] + radiusDeg * Math.cos(a)).toFixed(6)} ${(center[1] + radiusDeg * Math.sin(a)).toFixed(6)}`);
  }
  positions.push(positions[0]!);
  return `POLYGON ((${positions.join(', ')}))`;
}

export interface HostileShape {
  name: string;
  wkt: string;
}

/** The shapes of the issue, in the order the bench reports them. */
export function hostileShapes(): HostileShape[] {
  return [
    { name: '1,200 slanted strips (MULTIPOLYGON)', wkt: slantedStripsWkt(1_200) },
    { name: 'comb, 20,000 teeth (one ring)', wkt: combWkt(20_000) },
    { name: '13,000 slanted strips (MULTIPOLYGON)', wkt: slantedStripsWkt(13_000) },
    { name: 'circle, 100,000 vertices', wkt: circleWkt(100_000) },
  ];
}
