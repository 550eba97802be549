// Generated pre/post pairs with ground truth, for calibrating and testing the building-change
// model (calibrate.ts, tests, eval/change.ts, bench/change.ts). In-memory arrays only; the
// GeoTIFF stacks of src/synth are the end-to-end counterpart. Its draws (SimRandom: the
// repository's mulberry32, Box–Muller normals, Marsaglia–Tsang gamma speckle) are its own,
// not src/synth's Random, so the pairs — and the fitted model — stay as they were.
//
// Scene content (γ0 in dB, per polarisation VV / VH), every image with independent
// Gamma(L, 1/L) speckle:
// - land: VV −11 ± 1.5 dB smooth texture, VH = VV − 7 dB, plus a per-image soil-moisture
//   field of ±1 dB and a per-image offset of ±0.3 dB;
// - fields (farmland): rectangles of 150–600 m whose level is drawn anew for every image
//   (VV −15 … −7, VH −23 … −13): strong change, but never building-bright;
// - water: VV −26 … −14 dB per image (wind), VH −28 dB;
// - stable buildings: bright in both images (VV −4 … +6 dB, VH −14 … −6 dB);
// - new buildings: land before, building-bright after; vanished buildings the reverse;
// - transient point scatterers (vehicles, containers): single bright pixels in one image;
// - optional no-data: a strip along one edge in one image and a few random holes.
// Buildings are rectangles at sub-pixel positions: a pixel's intensity mixes building and
// background by the fraction of the pixel the building covers.

import { mulberry32 } from '../../src/prng.ts';

export interface SimulationSpec {
  width: number;
  height: number;
  pixelSizeM?: number;
  looks?: number;
  seed?: number;
  newBuildings?: number;
  vanishedBuildings?: number;
  stableBuildings?: number;
  fields?: number;
  /** Fraction of the scene (a band along the bottom) that is water. */
  waterFraction?: number;
  transients?: number;
  /** Building footprint range, m². */
  minBuildingSqm?: number;
  maxBuildingSqm?: number;
  /** Columns at the right edge with no data in the post image. */
  noDataColumns?: number;
  /** Unchanged pair: no new or vanished buildings, fields and water keep their level, no transients. */
  unchanged?: boolean;
}

export interface SimulatedBuilding {
  /** Continuous pixel coordinates of the rectangle's corners (x = column edge, y = row edge). */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  areaSqm: number;
}

export interface SimulatedPair {
  width: number;
  height: number;
  pixelSizeM: number;
  pre: { vv: Float32Array; vh: Float32Array };
  post: { vv: Float32Array; vh: Float32Array };
  validPre: Uint8Array;
  validPost: Uint8Array;
  appeared: SimulatedBuilding[];
  vanished: SimulatedBuilding[];
  stable: SimulatedBuilding[];
  /** Fraction of each pixel covered by an appeared / vanished building. */
  appearedCover: Float32Array;
  vanishedCover: Float32Array;
}

/** The repository's mulberry32 (src/prng.ts; seed 0 taken as 0x9e3779b9), with normal and speckle draws. */
export class SimRandom {
  readonly uniform: () => number;
  private spare: number | null = null;
  constructor(seed: number) {
    this.uniform = mulberry32(seed >>> 0 || 0x9e3779b9);
  }
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.uniform();
  }
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - this.uniform()));
    const a = 2 * Math.PI * this.uniform();
    this.spare = r * Math.sin(a);
    return r * Math.cos(a);
  }
  /** Gamma(shape, 1/shape): unit-mean speckle with `shape` looks (Marsaglia–Tsang). */
  speckle(looks: number): number {
    const boost = looks < 1;
    const a = boost ? looks + 1 : looks;
    const d = a - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - this.uniform();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
        const g = d * v;
        return (boost ? g * Math.pow(1 - this.uniform(), 1 / looks) : g) / looks;
      }
    }
  }
}

const fromDb = (db: number): number => Math.pow(10, db / 10);

/** Smooth value noise in [−1, 1] on a lattice of `spacing` pixels (bilinear). */
function valueNoise(width: number, height: number, spacing: number, rng: SimRandom): Float32Array {
  const gw = Math.ceil(width / spacing) + 2;
  const gh = Math.ceil(height / spacing) + 2;
  const grid = new Float32Array(gw * gh);
  for (let i = 0; i < grid.length; i++) grid[i] = rng.range(-1, 1);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const gy = y / spacing;
    const iy = Math.floor(gy);
    const fy = gy - iy;
    for (let x = 0; x < width; x++) {
      const gx = x / spacing;
      const ix = Math.floor(gx);
      const fx = gx - ix;
      const a = grid[iy * gw + ix]!;
      const b = grid[iy * gw + ix + 1]!;
      const c = grid[(iy + 1) * gw + ix]!;
      const d = grid[(iy + 1) * gw + ix + 1]!;
      out[y * width + x] = (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
    }
  }
  return out;
}

interface Placed {
  rect: SimulatedBuilding;
  vvDb: number;
  vhDb: number;
}

export function simulateChangePair(spec: SimulationSpec): SimulatedPair {
  const { width, height } = spec;
  const pixelSizeM = spec.pixelSizeM ?? 10;
  const looks = spec.looks ?? 4.4;
  const rng = new SimRandom(spec.seed ?? 1);
  const n = width * height;
  const unchanged = spec.unchanged ?? false;

  // Background levels (dB) before and after.
  const texture = valueNoise(width, height, 24, rng);
  const moisturePre = valueNoise(width, height, 40, rng);
  const moisturePost = valueNoise(width, height, 40, rng);
  const offsetPre = rng.range(-0.3, 0.3);
  const offsetPost = unchanged ? offsetPre : rng.range(-0.3, 0.3);
  const bgVvPre = new Float32Array(n);
  const bgVvPost = new Float32Array(n);
  const bgVhPre = new Float32Array(n);
  const bgVhPost = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const base = -11 + 1.5 * texture[i]!;
    bgVvPre[i] = base + moisturePre[i]! + offsetPre;
    bgVvPost[i] = base + (unchanged ? moisturePre[i]! : moisturePost[i]!) + offsetPost;
    bgVhPre[i] = bgVvPre[i]! - 7 + 0.5 * texture[i]!;
    bgVhPost[i] = bgVvPost[i]! - 7 + 0.5 * texture[i]!;
  }

  // Water along the bottom.
  const waterRows = Math.round((spec.waterFraction ?? 0.15) * height);
  const windPre = rng.range(-26, -14);
  const windPost = unchanged ? windPre : rng.range(-26, -14);
  const windTexture = valueNoise(width, height, 60, rng);
  for (let y = height - waterRows; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      bgVvPre[i] = windPre + 2 * windTexture[i]!;
      bgVvPost[i] = windPost + 2 * windTexture[i]!;
      bgVhPre[i] = bgVvPre[i]! - 8;
      bgVhPost[i] = bgVvPost[i]! - 8;
    }
  }
  const landHeight = height - waterRows;

  // Fields: a new level in every image.
  const fieldCount = spec.fields ?? Math.round((width * height) / 4000);
  for (let k = 0; k < fieldCount; k++) {
    const w = rng.range(150, 600) / pixelSizeM;
    const h = rng.range(150, 600) / pixelSizeM;
    const x0 = Math.floor(rng.range(0, width - w));
    const y0 = Math.floor(rng.range(0, Math.max(1, landHeight - h)));
    const vvPre = rng.range(-15, -7);
    const vhPre = vvPre - rng.range(6, 9);
    const vvPost = unchanged ? vvPre : rng.range(-15, -7);
    const vhPost = unchanged ? vhPre : vvPost - rng.range(6, 9);
    for (let y = y0; y < Math.min(landHeight, y0 + Math.round(h)); y++) {
      for (let x = x0; x < Math.min(width, x0 + Math.round(w)); x++) {
        const i = y * width + x;
        bgVvPre[i] = vvPre;
        bgVhPre[i] = vhPre;
        bgVvPost[i] = vvPost;
        bgVhPost[i] = vhPost;
      }
    }
  }

  // Buildings, placed without overlap (with a 2-pixel gap) on land.
  const minSqm = spec.minBuildingSqm ?? 150;
  const maxSqm = spec.maxBuildingSqm ?? 2500;
  const occupied = new Uint8Array(n);
  const place = (): SimulatedBuilding | null => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const area = Math.exp(rng.range(Math.log(minSqm), Math.log(maxSqm)));
      const aspect = rng.range(0.5, 2);
      const w = Math.sqrt(area * aspect) / pixelSizeM;
      const h = Math.sqrt(area / aspect) / pixelSizeM;
      const x0 = rng.range(3, width - w - 3);
      const y0 = rng.range(3, landHeight - h - 3);
      if (x0 < 3 || y0 < 3) continue;
      const gx0 = Math.floor(x0) - 2;
      const gy0 = Math.floor(y0) - 2;
      const gx1 = Math.ceil(x0 + w) + 2;
      const gy1 = Math.ceil(y0 + h) + 2;
      let free = true;
      for (let y = gy0; y < gy1 && free; y++) for (let x = gx0; x < gx1; x++) if (occupied[y * width + x]) free = false;
      if (!free) continue;
      for (let y = gy0; y < gy1; y++) for (let x = gx0; x < gx1; x++) occupied[y * width + x] = 1;
      return { x0, y0, x1: x0 + w, y1: y0 + h, areaSqm: w * h * pixelSizeM * pixelSizeM };
    }
    return null;
  };
  const building = (): Placed | null => {
    const rect = place();
    if (!rect) return null;
    const vvDb = rng.range(-4, 6);
    const vhDb = Math.min(vvDb - 4, rng.range(-14, -6));
    return { rect, vvDb, vhDb };
  };
  const many = (count: number): Placed[] => {
    const out: Placed[] = [];
    for (let k = 0; k < count; k++) {
      const b = building();
      if (b) out.push(b);
    }
    return out;
  };
  const area = (width * landHeight * pixelSizeM * pixelSizeM) / 1e6; // km²
  const stable = many(spec.stableBuildings ?? Math.round(area * 40));
  const appeared = unchanged ? [] : many(spec.newBuildings ?? Math.round(area * 40));
  const vanished = unchanged ? [] : many(spec.vanishedBuildings ?? Math.round(area * 20));

  const preVv = new Float32Array(n);
  const preVh = new Float32Array(n);
  const postVv = new Float32Array(n);
  const postVh = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    preVv[i] = fromDb(bgVvPre[i]!);
    preVh[i] = fromDb(bgVhPre[i]!);
    postVv[i] = fromDb(bgVvPost[i]!);
    postVh[i] = fromDb(bgVhPost[i]!);
  }
  const appearedCover = new Float32Array(n);
  const vanishedCover = new Float32Array(n);
  const paint = (b: Placed, images: Array<[Float32Array, Float32Array]>, cover: Float32Array | null): void => {
    const r = b.rect;
    const vv = fromDb(b.vvDb);
    const vh = fromDb(b.vhDb);
    for (let y = Math.max(0, Math.floor(r.y0)); y < Math.min(height, Math.ceil(r.y1)); y++) {
      const fy = Math.min(y + 1, r.y1) - Math.max(y, r.y0);
      for (let x = Math.max(0, Math.floor(r.x0)); x < Math.min(width, Math.ceil(r.x1)); x++) {
        const f = fy * (Math.min(x + 1, r.x1) - Math.max(x, r.x0));
        if (f <= 0) continue;
        const i = y * width + x;
        for (const [bandVv, bandVh] of images) {
          bandVv[i] = f * vv + (1 - f) * bandVv[i]!;
          bandVh[i] = f * vh + (1 - f) * bandVh[i]!;
        }
        if (cover) cover[i] = Math.min(1, cover[i]! + f);
      }
    }
  };
  for (const b of stable) paint(b, [[preVv, preVh], [postVv, postVh]], null);
  for (const b of appeared) paint(b, [[postVv, postVh]], appearedCover);
  for (const b of vanished) paint(b, [[preVv, preVh]], vanishedCover);

  // Transient point scatterers: one bright pixel in one image.
  const transients = spec.transients ?? (unchanged ? 0 : Math.round(area * 100));
  for (let k = 0; k < transients; k++) {
    const i = Math.floor(rng.range(0, width * landHeight));
    const [vv, vh] = rng.uniform() < 0.5 ? [preVv, preVh] : [postVv, postVh];
    vv[i] = fromDb(rng.range(0, 10));
    vh[i] = fromDb(rng.range(-10, -2));
  }

  // Speckle.
  for (const band of [preVv, preVh, postVv, postVh]) for (let i = 0; i < n; i++) band[i]! *= rng.speckle(looks);

  const validPre = new Uint8Array(n).fill(1);
  const validPost = new Uint8Array(n).fill(1);
  const noData = spec.noDataColumns ?? 0;
  for (let y = 0; y < height; y++) {
    for (let x = width - noData; x < width; x++) {
      const i = y * width + x;
      validPost[i] = 0;
      postVv[i] = Number.NaN;
      postVh[i] = Number.NaN;
    }
  }

  return {
    width,
    height,
    pixelSizeM,
    pre: { vv: preVv, vh: preVh },
    post: { vv: postVv, vh: postVh },
    validPre,
    validPost,
    appeared: appeared.map((b) => b.rect),
    vanished: vanished.map((b) => b.rect),
    stable: stable.map((b) => b.rect),
    appearedCover,
    vanishedCover,
  };
}

/**
 * Per-object scores of detected regions against truth buildings: a truth building of at
 * least `minTruthSqm` is found when a region covers one of its pixels (coverage ≥ 0.5); a
 * region is a false alarm when it covers no pixel of any truth building (smaller truth
 * buildings are neither required nor false alarms).
 */
export function scoreObjects(
  regions: ReadonlyArray<{ pixels: ArrayLike<number> }>,
  truth: readonly SimulatedBuilding[],
  width: number,
  minTruthSqm = 400,
): { tp: number; fn: number; fp: number; precision: number; recall: number; f1: number } {
  const owner = new Map<number, number>();
  truth.forEach((b, k) => {
    for (let y = Math.floor(b.y0); y < Math.ceil(b.y1); y++) {
      for (let x = Math.floor(b.x0); x < Math.ceil(b.x1); x++) {
        const fx = Math.min(x + 1, b.x1) - Math.max(x, b.x0);
        const fy = Math.min(y + 1, b.y1) - Math.max(y, b.y0);
        if (fx * fy >= 0.25) owner.set(y * width + x, k);
      }
    }
  });
  const found = new Set<number>();
  let fp = 0;
  for (const r of regions) {
    let hit = false;
    for (let i = 0; i < r.pixels.length; i++) {
      const k = owner.get(r.pixels[i]!);
      if (k !== undefined) {
        found.add(k);
        hit = true;
      }
    }
    if (!hit) fp++;
  }
  let tp = 0;
  let fn = 0;
  truth.forEach((b, k) => {
    if (b.areaSqm < minTruthSqm) return;
    if (found.has(k)) tp++;
    else fn++;
  });
  const precision = tp + fp > 0 ? tp / (tp + fp) : 1;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 1;
  const f1 = 2 * tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : 1;
  return { tp, fn, fp, precision, recall, f1 };
}
