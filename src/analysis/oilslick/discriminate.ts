/**
 * Per-region measurements and the look-alike rules of the oil-slick detector.
 *
 * A region's measurements are kept as sums (pixel count, coordinate moments, σ0 sums,
 * boundary edge counts, edge-gradient and surroundings samples), so the parts of one slick
 * that different tiles saw add up to exactly what one pass over the whole image would give;
 * features (area, elongation, contrast …) are computed from the sums only after the parts
 * are merged. The rules, each with its reason, are documented in docs/oilslick.md.
 */
import { lowWindSigma0Db } from './cmod5n.ts';
import type { DarkSpotMap, Labels, PixelSpacing } from './darkSpots.ts';
import type { LookAlikeRule, OilSlickParams } from './params.ts';

/** Additive measurements of a region (or of the part of it inside one tile core). */
export interface RegionStats {
  pixelCount: number;
  /** Σx, Σy, Σx², Σxy, Σy² of working-pixel centres (x = column, y = row). */
  sumX: number;
  sumY: number;
  sumXX: number;
  sumXY: number;
  sumYY: number;
  /** Σ speckle-smoothed σ0 (dB), Σ of its square, and its minimum (merged by min, not summed). */
  sumLevelDb: number;
  sumLevelDbSq: number;
  minLevelDb: number;
  /** Σ local background (dB) over the pixels where it is known, and their number. */
  sumBackgroundDb: number;
  backgroundPixels: number;
  /** Boundary edges between a region pixel and a non-region pixel: on top/bottom sides (each one range spacing long) and on left/right sides (one azimuth spacing). */
  edgesTopBottom: number;
  edgesLeftRight: number;
  /** Region pixels on the boundary, and Σ of |∇ σ0| (dB per metre) there. */
  boundaryPixels: number;
  sumEdgeGradient: number;
  /** Samples of the sea around the region, and how many of them are as dark as a dark pixel. */
  surroundSamples: number;
  surroundDark: number;
  /** Σ and Σ² of the smoothed σ0 (dB) of those samples. */
  surroundSumDb: number;
  surroundSumDbSq: number;
  /** Most bright-target pixels in the brightNearM window of any boundary pixel (merged by max). */
  brightNear: number;
}

export function emptyStats(): RegionStats {
  return {
    pixelCount: 0,
    sumX: 0,
    sumY: 0,
    sumXX: 0,
    sumXY: 0,
    sumYY: 0,
    sumLevelDb: 0,
    sumLevelDbSq: 0,
    minLevelDb: Infinity,
    sumBackgroundDb: 0,
    backgroundPixels: 0,
    edgesTopBottom: 0,
    edgesLeftRight: 0,
    boundaryPixels: 0,
    sumEdgeGradient: 0,
    surroundSamples: 0,
    surroundDark: 0,
    surroundSumDb: 0,
    surroundSumDbSq: 0,
    brightNear: 0,
  };
}

/** a += b, with b's coordinates moved by (dx, dy) first (tile-local → global). */
export function addStats(a: RegionStats, b: RegionStats, dx = 0, dy = 0): void {
  const n = b.pixelCount;
  a.sumXX += b.sumXX + 2 * dx * b.sumX + n * dx * dx;
  a.sumYY += b.sumYY + 2 * dy * b.sumY + n * dy * dy;
  a.sumXY += b.sumXY + dx * b.sumY + dy * b.sumX + n * dx * dy;
  a.sumX += b.sumX + n * dx;
  a.sumY += b.sumY + n * dy;
  a.pixelCount += n;
  a.sumLevelDb += b.sumLevelDb;
  a.sumLevelDbSq += b.sumLevelDbSq;
  a.minLevelDb = Math.min(a.minLevelDb, b.minLevelDb);
  a.sumBackgroundDb += b.sumBackgroundDb;
  a.backgroundPixels += b.backgroundPixels;
  a.edgesTopBottom += b.edgesTopBottom;
  a.edgesLeftRight += b.edgesLeftRight;
  a.boundaryPixels += b.boundaryPixels;
  a.sumEdgeGradient += b.sumEdgeGradient;
  a.surroundSamples += b.surroundSamples;
  a.surroundDark += b.surroundDark;
  a.surroundSumDb += b.surroundSumDb;
  a.surroundSumDbSq += b.surroundSumDbSq;
  a.brightNear = Math.max(a.brightNear, b.brightNear);
}

/** The part of one labelled region that lies in a tile core. */
export interface RegionPart {
  /** The region's label in the tile (edge strips refer to it). */
  label: number;
  stats: RegionStats;
  /** Core pixels of the region as row runs: (y, x start, x end exclusive) triples, tile-local working pixels. */
  runs: Int32Array;
  /** Bounding box of the runs (inclusive), tile-local working pixels. */
  box: { x0: number; y0: number; x1: number; y1: number };
}

export type MeasureParams = Pick<OilSlickParams, 'thresholdShiftDb' | 'surroundDistancesM' | 'brightNearM'>;

/** Half-distance (working pixels) of the edge-gradient differences. */
const GRADIENT_STEP = 2;

/** How far (working pixels) measurements look beyond a region pixel. */
export function measureSupportPx(params: MeasureParams, spacing: PixelSpacing): number {
  const far = Math.max(0, ...params.surroundDistancesM, params.brightNearM / 2);
  return Math.max(GRADIENT_STEP, Math.ceil(far / Math.min(spacing.range, spacing.azimuth)) + 1);
}

/**
 * Measurements of every labelled region over the pixels inside `core` (working pixels of this
 * tile). Regions that lie wholly inside the array (do not touch its border) and have fewer
 * than `dropCompleteBelow` pixels are left out: they are complete and too small, whichever
 * tile looks at them.
 */
export function measureRegionParts(
  map: DarkSpotMap,
  lab: Labels,
  core: { x0: number; y0: number; width: number; height: number },
  params: MeasureParams,
  dropCompleteBelow: number,
): { parts: RegionPart[]; kept: Uint8Array } {
  const { width: w, height: h, smoothDb, backgroundDb, dark, sea, spacing, brightSat } = map;
  const W = w + 1;
  const bx = Math.max(1, Math.round(params.brightNearM / 2 / spacing.range));
  const by = Math.max(1, Math.round(params.brightNearM / 2 / spacing.azimuth));
  const { labels, count, sizes, touchesBorder } = lab;
  const kept = new Uint8Array(count + 1);
  for (let l = 1; l <= count; l++) kept[l] = touchesBorder[l] !== 0 || sizes[l]! >= dropCompleteBelow ? 1 : 0;

  // Per kept label: measurements, runs and box; looked up through a dense index.
  const slot = new Int32Array(count + 1).fill(-1);
  const statList: RegionStats[] = [];
  const runList: number[][] = [];
  const boxList: { x0: number; y0: number; x1: number; y1: number }[] = [];
  const labelList: number[] = [];
  const shift = params.thresholdShiftDb;
  const sx = spacing.range;
  const sy = spacing.azimuth;
  const offsets: number[] = [];
  for (const d of params.surroundDistancesM) {
    for (let k = 0; k < 8; k++) {
      const a = (k * Math.PI) / 4;
      offsets.push(Math.round((d * Math.cos(a)) / sx), Math.round((d * Math.sin(a)) / sy));
    }
  }
  const g = GRADIENT_STEP;

  const x1c = core.x0 + core.width;
  const y1c = core.y0 + core.height;
  for (let y = core.y0; y < y1c; y++) {
    let runSlot = -1;
    let runStart = 0;
    for (let x = core.x0; x <= x1c; x++) {
      const i = y * w + x;
      const l = x < x1c ? labels[i]! : 0;
      const k = l !== 0 && kept[l] !== 0 ? slotFor(l) : -1;
      if (k !== runSlot) {
        if (runSlot >= 0) {
          runList[runSlot]!.push(y, runStart, x);
          const b = boxList[runSlot]!;
          if (runStart < b.x0) b.x0 = runStart;
          if (x - 1 > b.x1) b.x1 = x - 1;
          if (y > b.y1) b.y1 = y;
        }
        runSlot = k;
        runStart = x;
      }
      if (k < 0) continue;
      const s = statList[k]!;
      s.pixelCount++;
      s.sumX += x;
      s.sumY += y;
      s.sumXX += x * x;
      s.sumXY += x * y;
      s.sumYY += y * y;
      const lv = smoothDb[i]!;
      s.sumLevelDb += lv;
      s.sumLevelDbSq += lv * lv;
      if (lv < s.minLevelDb) s.minLevelDb = lv;
      const bg = backgroundDb[i]!;
      const bgKnown = bg === bg;
      if (bgKnown) {
        s.sumBackgroundDb += bg;
        s.backgroundPixels++;
      }
      const up = y > 0 && labels[i - w] === l;
      const down = y < h - 1 && labels[i + w] === l;
      const left = x > 0 && labels[i - 1] === l;
      const right = x < w - 1 && labels[i + 1] === l;
      const tb = (up ? 0 : 1) + (down ? 0 : 1);
      const lr = (left ? 0 : 1) + (right ? 0 : 1);
      if (tb + lr === 0) continue;
      s.edgesTopBottom += tb;
      s.edgesLeftRight += lr;
      s.boundaryPixels++;

      const gx = centralDifference(smoothDb, sea, i, x + g < w ? i + g : -1, x - g >= 0 ? i - g : -1, g * sx);
      const gy = centralDifference(smoothDb, sea, i, y + g < h ? i + g * w : -1, y - g >= 0 ? i - g * w : -1, g * sy);
      s.sumEdgeGradient += Math.sqrt(gx * gx + gy * gy);
      {
        const xa = Math.max(0, x - bx);
        const xb = Math.min(w, x + bx + 1);
        const ya = Math.max(0, y - by) * W;
        const yb = Math.min(h, y + by + 1) * W;
        const bright = brightSat[yb + xb]! - brightSat[ya + xb]! - brightSat[yb + xa]! + brightSat[ya + xa]!;
        if (bright > s.brightNear) s.brightNear = bright;
      }

      if (bgKnown) {
        const limit = bg - shift;
        for (let o = 0; o < offsets.length; o += 2) {
          const qx = x + offsets[o]!;
          const qy = y + offsets[o + 1]!;
          if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
          const q = qy * w + qx;
          if (sea[q] === 0 || dark[q] !== 0) continue;
          s.surroundSamples++;
          const v = smoothDb[q]!;
          s.surroundSumDb += v;
          s.surroundSumDbSq += v * v;
          if (v < limit) s.surroundDark++;
        }
      }
    }
  }

  function slotFor(l: number): number {
    let k = slot[l]!;
    if (k < 0) {
      k = statList.length;
      slot[l] = k;
      statList.push(emptyStats());
      runList.push([]);
      boxList.push({ x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity });
      labelList.push(l);
    }
    return k;
  }

  const parts: RegionPart[] = statList.map((stats, k) => {
    const runs = Int32Array.from(runList[k]!);
    const box = boxList[k]!;
    box.y0 = runs[0]!;
    return { label: labelList[k]!, stats, runs, box };
  });
  parts.sort((a, b) => a.label - b.label);
  return { parts, kept };
}

/**
 * d(dB)/d(metre) at pixel i from the pixels `step` metres apart on either side (a, b; −1 when
 * outside); one-sided where one of them is off sea, 0 where both are.
 */
function centralDifference(db: Float32Array, sea: Uint8Array, i: number, a: number, b: number, step: number): number {
  const okA = a >= 0 && sea[a] !== 0;
  const okB = b >= 0 && sea[b] !== 0;
  if (okA && okB) return (db[a]! - db[b]!) / (2 * step);
  if (okA) return (db[a]! - db[i]!) / step;
  if (okB) return (db[i]! - db[b]!) / step;
  return 0;
}

/** What the rules look at, in physical units. */
export interface SlickFeatures {
  areaSqkm: number;
  /** Second-moment axes: length and width (m) of the rectangle with the same moments. */
  lengthM: number;
  widthM: number;
  /** Major / minor axis ratio from the second moments (1 for a disk). */
  elongation: number;
  /** 4πA / P² (1 for a disk), with P the pixel-edge perimeter × π/4 (its mean overestimate of a smooth outline). */
  compactness: number;
  perimeterM: number;
  /** Mean of the speckle-smoothed σ0 (dB) over the region and of its local background (dB), and their difference. */
  levelDb: number;
  backgroundDb: number;
  contrastDb: number;
  /** Mean |∇σ0| across the boundary, dB per 100 m. */
  edgeGradientDbPer100m: number;
  /** Fraction of the sea samples around the region that pass the region's own dark test. */
  surroundDarkFraction: number;
  incidenceDeg: number;
  /** CMOD5.N crosswind σ0 (dB) at lowWindSpeed and this incidence. */
  lowWindThresholdDb: number;
  /** Standard deviation (dB) of the smoothed σ0 inside the region and of the samples around it. */
  insideStdDb: number;
  surroundStdDb: number;
  /** Mean of the samples around the region minus the region's mean (dB): contrast to the sea right beside it. */
  localContrastDb: number;
  /** Background minus the region's darkest smoothed value (dB). */
  depthDb: number;
  /** Bright-target working pixels near the boundary (see RegionStats.brightNear). */
  brightNear: number;
  /** Fraction of the region's pixels on its boundary (1 for a line one pixel wide). */
  boundaryFraction: number;
  /** The other candidates around this one (neighbourhoodContext); empty until it runs. */
  context: SlickContext;
}

/**
 * What the other candidates (≥ minAreaSqkm) whose centroids lie within CONTEXT_HALF_SIDE_M of
 * this one's (a square window about the size of a 4 km chip) look like: a slick is usually
 * the one distinct dark patch of its neighbourhood, a low-wind area or a wind-shadowed coast
 * many alike ones.
 */
export interface SlickContext {
  /** How many other candidates. */
  neighbours: number;
  /** Their total area (km²). */
  neighbourAreaSqkm: number;
  /** The largest one's area (km²; 0 without neighbours). */
  largestNeighbourAreaSqkm: number;
  /** The strongest contrast (dB) among them (NaN without neighbours). */
  strongestNeighbourContrastDb: number;
  /** Mean of their background levels (dB; NaN without neighbours). */
  neighbourBackgroundDb: number;
}

/** Half side (m) of the square window neighbourhoodContext looks in. */
export const CONTEXT_HALF_SIDE_M = 2000;

export function emptyContext(): SlickContext {
  return { neighbours: 0, neighbourAreaSqkm: 0, largestNeighbourAreaSqkm: 0, strongestNeighbourContrastDb: Number.NaN, neighbourBackgroundDb: Number.NaN };
}

/**
 * The context of every candidate: `centres` are centroids in metres (x, y), `eligible` marks
 * the candidates that count as neighbours (and get a context). Grid buckets of the window's
 * size keep it linear in the number of candidates for spread-out scenes.
 */
export function neighbourhoodContext(features: readonly SlickFeatures[], centres: ReadonlyArray<readonly [number, number]>, eligible: readonly boolean[], halfSideM = CONTEXT_HALF_SIDE_M): SlickContext[] {
  const cell = (v: number) => Math.floor(v / halfSideM);
  const buckets = new Map<string, number[]>();
  features.forEach((_, i) => {
    if (!eligible[i]) return;
    const key = `${cell(centres[i]![0])},${cell(centres[i]![1])}`;
    const list = buckets.get(key);
    if (list) list.push(i);
    else buckets.set(key, [i]);
  });
  return features.map((_, i) => {
    const ctx = emptyContext();
    if (!eligible[i]) return ctx;
    const [x, y] = centres[i]!;
    const cx = cell(x);
    const cy = cell(y);
    let sumBg = 0;
    let bgCount = 0;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        for (const j of buckets.get(`${cx + dx},${cy + dy}`) ?? []) {
          if (j === i) continue;
          const [xj, yj] = centres[j]!;
          if (Math.abs(xj - x) > halfSideM || Math.abs(yj - y) > halfSideM) continue;
          const f = features[j]!;
          ctx.neighbours++;
          ctx.neighbourAreaSqkm += f.areaSqkm;
          ctx.largestNeighbourAreaSqkm = Math.max(ctx.largestNeighbourAreaSqkm, f.areaSqkm);
          if (Number.isFinite(f.contrastDb) && !(f.contrastDb <= ctx.strongestNeighbourContrastDb)) ctx.strongestNeighbourContrastDb = f.contrastDb;
          if (Number.isFinite(f.backgroundDb)) {
            sumBg += f.backgroundDb;
            bgCount++;
          }
        }
      }
    }
    if (bgCount > 0) ctx.neighbourBackgroundDb = sumBg / bgCount;
    return ctx;
  });
}

export type LookAlikeReason = LookAlikeRule | 'low_probability';

/** Pixel sums of a region: count and first and second moments of its (x, y) in pixels. */
export interface PixelMoments {
  pixelCount: number;
  sumX: number;
  sumY: number;
  sumXX: number;
  sumYY: number;
  sumXY: number;
}

/**
 * Principal variances (m²) of a region's pixels, each pixel counted with its own extent
 * (1/12 px²) so that a one-pixel line has a width; length and width of the region are
 * √(12·major) and √(12·minor) (those of a rectangle with the same moments).
 */
export function secondMoments(s: PixelMoments, spacing: PixelSpacing): { major: number; minor: number } {
  const n = Math.max(1, s.pixelCount);
  const sx = spacing.range;
  const sy = spacing.azimuth;
  const mx = s.sumX / n;
  const my = s.sumY / n;
  const cxx = (s.sumXX / n - mx * mx + 1 / 12) * sx * sx;
  const cyy = (s.sumYY / n - my * my + 1 / 12) * sy * sy;
  const cxy = (s.sumXY / n - mx * my) * sx * sy;
  const half = (cxx + cyy) / 2;
  const root = Math.sqrt(Math.max(0, ((cxx - cyy) / 2) ** 2 + cxy * cxy));
  return { major: half + root, minor: Math.max(half - root, 1e-9) };
}

/** Features of a merged region; `spacing` is the working-pixel spacing. */
export function regionFeatures(
  s: RegionStats,
  spacing: PixelSpacing,
  incidenceDeg: number,
  params: Pick<OilSlickParams, 'lowWindSpeed'>,
): SlickFeatures {
  const n = Math.max(1, s.pixelCount);
  const sx = spacing.range;
  const sy = spacing.azimuth;
  const { major, minor } = secondMoments(s, spacing);
  const areaM2 = s.pixelCount * sx * sy;
  const perimeterM = ((s.edgesTopBottom * sx + s.edgesLeftRight * sy) * Math.PI) / 4;
  const levelDb = s.sumLevelDb / n;
  const backgroundDb = s.backgroundPixels > 0 ? s.sumBackgroundDb / s.backgroundPixels : Number.NaN;
  return {
    areaSqkm: areaM2 / 1e6,
    lengthM: Math.sqrt(12 * major),
    widthM: Math.sqrt(12 * minor),
    elongation: Math.sqrt(major / minor),
    compactness: perimeterM > 0 ? (4 * Math.PI * areaM2) / (perimeterM * perimeterM) : 0,
    perimeterM,
    levelDb,
    backgroundDb,
    contrastDb: backgroundDb - levelDb,
    edgeGradientDbPer100m: s.boundaryPixels > 0 ? (100 * s.sumEdgeGradient) / s.boundaryPixels : 0,
    surroundDarkFraction: s.surroundSamples > 0 ? s.surroundDark / s.surroundSamples : 0,
    incidenceDeg,
    lowWindThresholdDb: lowWindSigma0Db(incidenceDeg, params.lowWindSpeed),
    insideStdDb: Math.sqrt(Math.max(0, s.sumLevelDbSq / n - levelDb * levelDb)),
    surroundStdDb: s.surroundSamples > 1 ? Math.sqrt(Math.max(0, s.surroundSumDbSq / s.surroundSamples - (s.surroundSumDb / s.surroundSamples) ** 2)) : 0,
    localContrastDb: s.surroundSamples > 0 ? s.surroundSumDb / s.surroundSamples - levelDb : backgroundDb - levelDb,
    depthDb: backgroundDb - s.minLevelDb,
    brightNear: s.brightNear,
    boundaryFraction: s.boundaryPixels / n,
    context: emptyContext(),
  };
}

/**
 * Why a region is not an oil slick (empty: it is one). All rules are checked, so a rejected
 * region lists every reason that applies.
 */
export function lookAlikeReasons(f: SlickFeatures, params: OilSlickParams): LookAlikeReason[] {
  const reasons: LookAlikeReason[] = [];
  // SNAP's clustering minimum: smaller dark spots are speckle, wave groups, ship wakes.
  if (f.areaSqkm < params.minAreaSqkm) reasons.push('too_small');
  // Oil damps the Bragg waves by 3–10 dB at C band VV; less is mostly wind variability.
  if (!(f.contrastDb >= params.minContrastDb)) reasons.push('low_contrast');
  // A calm background: below the wind speed where oil can be told from calm sea at all.
  if (!(f.backgroundDb >= f.lowWindThresholdDb)) reasons.push('low_wind');
  // Dark on one side only: the edge of a larger dark (calm) area, not a slick on open sea.
  if (f.surroundDarkFraction > params.maxSurroundDarkFraction) reasons.push('dark_surroundings');
  // Round, smooth blobs: rain cells, wind shadows, upwelling; slicks are drawn out by wind and current.
  if (f.elongation < params.compactMaxElongation && f.compactness > params.compactMinCompactness) reasons.push('compact_shape');
  // Oil films have sharp edges; wind-speed changes fade over hundreds of metres.
  if (f.edgeGradientDbPer100m < params.minEdgeGradientDbPer100m) reasons.push('diffuse_edge');
  return reasons;
}
