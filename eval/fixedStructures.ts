/**
 * Fixed structures on real data (issue 23 §3; `npm run eval -- --only fixed`). The real GRD
 * sample (the North-Sea crop) is one date: no earlier acquisition of its track exists here. The
 * real stack is OPERA RTC-S1 over the Santa Barbara Channel (samples/s1/rtc-stack-santabarbara:
 * track 137, 21 dates 2021-11 … 2025-01, 100 × 100 px bursts at 30 m, the same grid every date),
 * where oil platforms stand in the sea. Every bright sea target of a date (a local maximum
 * ≥ 12 dB over the date's sea median, the rule's contrast) is looked at on up to 5 earlier dates
 * with the ship module's own test (brightTargetNear, decidePersistence: within 30 m, ≥ 60 %).
 * γ0 at 30 m is not the GRD σ0 at 10 m the ship job reads: this measures the persistence rule
 * on real clutter and real structures, not the ship detector.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fromFile } from 'geotiff';
import { brightTargetNear, decidePersistence, FIXED_STRUCTURE_RULE } from '../src/analysis/ship/fixedStructures.ts';
import { lonLatTransform } from '../src/imagery/rtc/projection.ts';
import { S1_DATA } from '../src/repoPaths.ts';

export interface FixedRtcTarget {
  burst: string;
  date: string;
  lon: number;
  lat: number;
  contrastDb: number;
  bright: number;
  looked: number;
  fixed: boolean;
}

export interface FixedRtcEval {
  available: boolean;
  dates: number;
  bursts: number;
  targets: FixedRtcTarget[];
  /** lon/lat bounds of the bursts read: [west, south, east, north]. */
  bounds: [number, number, number, number];
}

const STACK = path.join(S1_DATA, 'rtc-stack-santabarbara', 'tests', 'test_data', 'cropped', '10SGD', '137');

export async function evalFixedStructuresRtc(): Promise<FixedRtcEval> {
  let dates: string[];
  try {
    dates = readdirSync(STACK).filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).sort();
  } catch {
    return { available: false, dates: 0, bursts: 0, targets: [], bounds: [0, 0, 0, 0] };
  }
  const rule = FIXED_STRUCTURE_RULE;
  const burstsOf = new Map<string, Map<string, string>>();
  for (const date of dates) {
    for (const f of readdirSync(path.join(STACK, date))) {
      const m = /_(T137-\d+-IW1)_.*_VV\.tif$/.exec(f);
      if (m) burstsOf.set(m[1]!, (burstsOf.get(m[1]!) ?? new Map()).set(date, path.join(STACK, date, f)));
    }
  }
  const targets: FixedRtcTarget[] = [];
  const bounds: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [burst, files] of burstsOf) {
    const stack: { date: string; data: Float32Array; width: number; height: number; origin: [number, number]; res: [number, number]; epsg: number }[] = [];
    for (const date of dates) {
      const file = files.get(date);
      if (!file) continue;
      const tiff = await fromFile(file);
      const image = await tiff.getImage();
      const [band] = (await image.readRasters({ samples: [0] })) as unknown as Float32Array[];
      const epsg = Number(image.getGeoKeys()?.ProjectedCSTypeGeoKey ?? 32611);
      stack.push({ date, data: Float32Array.from(band!), width: image.getWidth(), height: image.getHeight(), origin: image.getOrigin() as [number, number], res: image.getResolution() as [number, number], epsg });
      await tiff.close();
    }
    const { width, height } = stack[0]!;
    const spacing = { range: Math.abs(stack[0]!.res[0]), azimuth: Math.abs(stack[0]!.res[1]) };
    const toLonLat = lonLatTransform(stack[0]!.epsg).toLonLat;
    for (const [x, y] of [[0, 0], [width, 0], [0, height], [width, height]] as const) {
      const [lon, lat] = toLonLat(stack[0]!.origin[0] + x * stack[0]!.res[0], stack[0]!.origin[1] + y * stack[0]!.res[1]);
      bounds[0] = Math.min(bounds[0], lon);
      bounds[1] = Math.min(bounds[1], lat);
      bounds[2] = Math.max(bounds[2], lon);
      bounds[3] = Math.max(bounds[3], lat);
    }
    // Sea: the pixel's median over the dates is below −13 dB (land and platforms' decks are brighter; the sea at these angles −15 … −25 dB).
    const sea = new Uint8Array(width * height);
    for (let i = 0; i < width * height; i++) {
      const v = stack.map((s) => s.data[i]!).filter((x) => x > 0 && Number.isFinite(x)).sort((a, b) => a - b);
      sea[i] = v.length > 0 && v[v.length >> 1]! < 10 ** -1.3 ? 1 : 0;
    }
    const hx = Math.ceil(rule.windowHalfM / spacing.range);
    const hy = Math.ceil(rule.windowHalfM / spacing.azimuth);
    for (let d = 1; d < stack.length; d++) {
      const cur = stack[d]!;
      const seaValues = [...cur.data.filter((v, i) => sea[i] && v > 0)].sort((a, b) => a - b);
      if (seaValues.length < 100) continue;
      const median = seaValues[seaValues.length >> 1]!;
      // A platform's persistent brightness may make its own pixels "land" by the median test: candidates are judged against the sea median, anywhere within 2 px of the sea.
      for (let r = 1; r < height - 1; r++) {
        for (let c = 1; c < width - 1; c++) {
          const v = cur.data[r * width + c]!;
          if (!(v >= median * 10 ** (rule.minContrastDb / 10))) continue;
          let nearSea = false;
          let isMax = true;
          for (let dr = -2; dr <= 2; dr++)
            for (let dc = -2; dc <= 2; dc++) {
              const rr = r + dr;
              const cc = c + dc;
              if (rr < 0 || cc < 0 || rr >= height || cc >= width) continue;
              if (sea[rr * width + cc]) nearSea = true;
              if ((dr || dc) && cur.data[rr * width + cc]! > v) isMax = false;
            }
          // Only targets in open water: the whole 11 × 11 window around them is sea but for the target itself.
          let seaAround = 0;
          for (let dr = -hy; dr <= hy; dr++) for (let dc = -hx; dc <= hx; dc++) if (sea[Math.min(height - 1, Math.max(0, r + dr)) * width + Math.min(width - 1, Math.max(0, c + dc))]) seaAround++;
          if (!nearSea || !isMax || seaAround < 0.8 * (2 * hx + 1) * (2 * hy + 1)) continue;
          const seen = stack.slice(Math.max(0, d - rule.maxEarlierDates), d).reverse().map((e) => {
            const x0 = Math.max(0, c - hx);
            const y0 = Math.max(0, r - hy);
            const w = Math.min(width, c + hx + 1) - x0;
            const h = Math.min(height, r + hy + 1) - y0;
            const data = new Float32Array(w * h);
            const valid = new Uint8Array(w * h);
            for (let y = 0; y < h; y++)
              for (let x = 0; x < w; x++) {
                const value = e.data[(y0 + y) * width + x0 + x]!;
                data[y * w + x] = value;
                valid[y * w + x] = value > 0 && Number.isFinite(value) ? 1 : 0;
              }
            return brightTargetNear({ data, valid, width: w, height: h }, c - x0, r - y0, spacing, rule);
          });
          const decision = decidePersistence(seen, rule);
          const [lon, lat] = toLonLat(cur.origin[0] + (c + 0.5) * cur.res[0], cur.origin[1] + (r + 0.5) * cur.res[1]);
          targets.push({ burst, date: cur.date, lon, lat, contrastDb: 10 * Math.log10(v / median), bright: decision.bright, looked: decision.looked, fixed: decision.fixed === true });
        }
      }
    }
  }
  return { available: true, dates: dates.length, bursts: burstsOf.size, targets, bounds };
}

export function printFixedStructuresRtc(r: FixedRtcEval): void {
  console.log('\n## Fixed structures: real OPERA RTC stack, Santa Barbara Channel (track 137, IW1 bursts)');
  if (!r.available) {
    console.log('samples/s1/rtc-stack-santabarbara not found: skipped');
    return;
  }
  const fixed = r.targets.filter((t) => t.fixed);
  const [w, so, e, n] = r.bounds;
  console.log(`bursts within ${so.toFixed(3)}–${n.toFixed(3)} N, ${(-e).toFixed(3)}–${(-w).toFixed(3)} W`);
  console.log(`${r.bursts} bursts × ${r.dates} dates; bright open-sea targets (≥ ${FIXED_STRUCTURE_RULE.minContrastDb} dB over the date's sea median) with ≥ 1 earlier date: ${r.targets.length}; fixed by the rule: ${fixed.length}, not fixed: ${r.targets.length - fixed.length}`);
  // Places: targets within 60 m of each other are one place.
  const places: { lon: number; lat: number; dates: number; fixed: number }[] = [];
  for (const t of r.targets) {
    const p = places.find((q) => Math.hypot((q.lon - t.lon) * 111_320 * Math.cos((t.lat * Math.PI) / 180), (q.lat - t.lat) * 110_574) <= 60);
    if (p) {
      p.dates++;
      if (t.fixed) p.fixed++;
    } else places.push({ lon: t.lon, lat: t.lat, dates: 1, fixed: t.fixed ? 1 : 0 });
  }
  for (const p of places.sort((a, b) => b.dates - a.dates)) console.log(`  ${p.lat.toFixed(5)} N ${(-p.lon).toFixed(5)} W: bright on ${p.dates} dates, fixed on ${p.fixed}`);
}
