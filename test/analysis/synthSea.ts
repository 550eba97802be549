// Generated open sea with vessels, for the ship detector's tests and measurements.
//
// The model (assumptions, documented in docs/ship.md):
// - Sea σ0 from wind speed U (m/s) at mid-swath incidence, rough fits to CMOD5-like levels:
//   VV dB = −33 + 20·log10 U (3 m/s: −23.5 dB, 10 m/s: −13 dB); VH dB = −40 + 13·log10 U
//   (3 m/s: −33.8 dB, 10 m/s: −27 dB). Thermal noise (NESZ −25 dB with a ±1.5 dB range
//   scalloping) is added to both, as in a GRD that is not denoised.
// - Texture: a gamma random field of shape ν (K-distributed clutter), constant over 30 m cells,
//   lower ν at low wind (patchier sea), modulated by a smooth ±1 dB large-scale field (wind
//   streaks, fronts).
// - Speckle: 4 looks of complex Gaussian noise, each smoothed by a Gaussian kernel so that
//   neighbouring intensities correlate as in the real North-Sea crop (0.6 in range, 0.44 in
//   azimuth); the intensity is their mean.
// - Vessels: length L, width L/6, random heading, as a line of point scatterers along the hull
//   blurred by the impulse response (FWHM 20 m range × 22 m azimuth). RCS (VV) = 0.08·L^(7/3) m²
//   (a commonly used size–RCS relation: 23 dBsm at 30 m, 47 dBsm at 300 m), VH 8 dB lower, and a
//   lognormal fluctuation of 3 dB per vessel.

import { mulberry32 } from '../../src/prng.ts';

export interface SynthVessel {
  row: number;
  col: number;
  lengthM: number;
  headingDeg: number;
}

export interface SynthScene {
  width: number;
  height: number;
  vh: Float32Array;
  vv: Float32Array;
  valid: Uint8Array;
  vessels: SynthVessel[];
  spacing: { range: number; azimuth: number };
}

export interface SynthOptions {
  width?: number;
  height?: number;
  windSpeed: number;
  seed: number;
  vessels?: number;
  /** Vessel lengths (m): log-uniform in [min, max]. */
  minLengthM?: number;
  maxLengthM?: number;
  /** Texture shape ν; default from the wind speed. */
  textureShape?: number;
  /** Leave out the thermal noise. */
  noNoise?: boolean;
  /** Channels to generate (default both). */
  channels?: Array<'VH' | 'VV'>;
  /** Explicit vessels (instead of random ones). */
  place?: Array<Omit<SynthVessel, 'headingDeg'> & { headingDeg?: number; rcsDbsmVv?: number }>;
}

/** Seeded PRNG (mulberry32). */
export const rng = mulberry32;

function gaussianSampler(random: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = random();
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** Gamma(shape, 1/shape) variate (mean 1), Marsaglia–Tsang. */
function gammaSampler(random: () => number, normal: () => number): (shape: number) => number {
  const sample = (shape: number): number => {
    if (shape < 1) return sample(shape + 1) * Math.pow(random(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = random();
      if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return (d * v) / shape;
    }
  };
  return sample;
}

function kernel(sigma: number): Float64Array {
  const half = Math.max(1, Math.ceil(3 * sigma));
  const k = new Float64Array(2 * half + 1);
  let s = 0;
  for (let i = -half; i <= half; i++) {
    k[i + half] = Math.exp(-(i * i) / (2 * sigma * sigma));
    s += k[i + half]! ** 2;
  }
  // Unit energy: smoothed unit-variance noise keeps unit variance.
  for (let i = 0; i < k.length; i++) k[i] = k[i]! / Math.sqrt(s);
  return k;
}

/** Separable convolution (zero padding is fine: the noise is stationary and edges are few). */
function convolve(src: Float32Array, w: number, h: number, kx: Float64Array, ky: Float64Array): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  const hx = (kx.length - 1) / 2;
  const hy = (ky.length - 1) / 2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let k = -hx; k <= hx; k++) {
        const xx = x + k;
        if (xx >= 0 && xx < w) s += src[y * w + xx]! * kx[k + hx]!;
      }
      tmp[y * w + x] = s;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let k = -hy; k <= hy; k++) {
        const yy = y + k;
        if (yy >= 0 && yy < h) s += tmp[yy * w + x]! * ky[k + hy]!;
      }
      out[y * w + x] = s;
    }
  }
  return out;
}

/** Correlated L-look speckle (mean 1). */
function speckle(w: number, h: number, looks: number, normal: () => number): Float32Array {
  const kx = kernel(0.97);
  const ky = kernel(0.77);
  const out = new Float32Array(w * h);
  const re = new Float32Array(w * h);
  const im = new Float32Array(w * h);
  for (let l = 0; l < looks; l++) {
    for (let i = 0; i < w * h; i++) {
      re[i] = normal() * Math.SQRT1_2;
      im[i] = normal() * Math.SQRT1_2;
    }
    const a = convolve(re, w, h, kx, ky);
    const b = convolve(im, w, h, kx, ky);
    for (let i = 0; i < w * h; i++) out[i] = out[i]! + (a[i]! * a[i]! + b[i]! * b[i]!) / looks;
  }
  return out;
}

/** A smooth field with values in about ±1 (sum of a few random long-wavelength waves). */
function smoothField(w: number, h: number, random: () => number, wavelengthPx: number): Float32Array {
  const out = new Float32Array(w * h);
  const waves = Array.from({ length: 6 }, () => ({
    kx: ((random() - 0.5) * 4 * Math.PI) / wavelengthPx,
    ky: ((random() - 0.5) * 4 * Math.PI) / wavelengthPx,
    phase: random() * 2 * Math.PI,
  }));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    let s = 0;
    for (const wv of waves) s += Math.cos(wv.kx * x + wv.ky * y + wv.phase);
    out[y * w + x] = s / Math.sqrt(waves.length * 0.5) / 2;
  }
  return out;
}

export function vesselRcsDbsmVv(lengthM: number): number {
  return 10 * Math.log10(0.08 * Math.pow(lengthM, 7 / 3));
}

/** Generate a scene. Deterministic for a given seed. */
export function generateSea(options: SynthOptions): SynthScene {
  const w = options.width ?? 1024;
  const h = options.height ?? 1024;
  const spacing = { range: 10, azimuth: 10 };
  const random = rng(options.seed);
  const normal = gaussianSampler(random);
  const gamma = gammaSampler(random, normal);
  const U = options.windSpeed;
  const db = (x: number): number => 10 ** (x / 10);
  const vvSea = db(-33 + 20 * Math.log10(U));
  const vhSea = db(-40 + 13 * Math.log10(U));
  const shape = options.textureShape ?? 2 + 1.5 * U; // 3 m/s: 6.5, 10 m/s: 17

  // Texture: gamma variates (mean 1) on 3 × 3-pixel cells, times the streaks.
  const cw = Math.ceil(w / 3);
  const cells = new Float32Array(cw * Math.ceil(h / 3));
  for (let i = 0; i < cells.length; i++) cells[i] = gamma(shape);
  const streaks = smoothField(w, h, random, 400);
  const texture = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) texture[y * w + x] = cells[((y / 3) | 0) * cw + ((x / 3) | 0)]! * db(streaks[y * w + x]!);

  const noise = new Float32Array(w);
  for (let x = 0; x < w; x++) noise[x] = options.noNoise ? 0 : db(-25 + 1.5 * Math.sin((2 * Math.PI * x) / 600));

  const channels = options.channels ?? ['VH', 'VV'];
  const specVh = channels.includes('VH') ? speckle(w, h, 4, normal) : new Float32Array(w * h);
  const specVv = channels.includes('VV') ? speckle(w, h, 4, normal) : new Float32Array(w * h);
  const vh = new Float32Array(w * h);
  const vv = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = y * w + x;
    vh[i] = (vhSea * texture[i]! + noise[x]!) * specVh[i]!;
    vv[i] = (vvSea * texture[i]! + noise[x]!) * specVv[i]!;
  }

  // Vessels.
  const vessels: SynthVessel[] = [];
  const placed: Array<SynthVessel & { rcsDbsmVv?: number }> = [];
  if (options.place) {
    for (const p of options.place) placed.push({ ...p, headingDeg: p.headingDeg ?? random() * 180 });
  } else {
    const count = options.vessels ?? 30;
    const minL = options.minLengthM ?? 30;
    const maxL = options.maxLengthM ?? 300;
    let attempts = 0;
    while (placed.length < count && attempts++ < count * 200) {
      const lengthM = minL * Math.pow(maxL / minL, random());
      const margin = 60;
      const row = margin + random() * (h - 2 * margin);
      const col = margin + random() * (w - 2 * margin);
      // At least 400 m between vessels, so that truth points are unambiguous.
      if (placed.some((v) => Math.hypot(v.row - row, v.col - col) * 10 < 400 + (v.lengthM + lengthM) / 2)) continue;
      placed.push({ row, col, lengthM, headingDeg: random() * 180 });
    }
  }
  const fwhmRange = 20 / spacing.range;
  const fwhmAz = 22 / spacing.azimuth;
  const sr = fwhmRange / 2.3548;
  const sa = fwhmAz / 2.3548;
  for (const v of placed) {
    const rcsVv = db((v.rcsDbsmVv ?? vesselRcsDbsmVv(v.lengthM)) + 3 * normal());
    const rcsVh = rcsVv * db(-8);
    const n = Math.max(2, Math.ceil(v.lengthM / 8));
    const th = (v.headingDeg * Math.PI) / 180;
    // Heading 0 = along azimuth (rows).
    const dr = Math.cos(th);
    const dc = Math.sin(th);
    const weights = Array.from({ length: n }, () => -Math.log(1 - random() * 0.999));
    const total = weights.reduce((a, b) => a + b, 0);
    for (let k = 0; k < n; k++) {
      const t = (k / (n - 1) - 0.5) * v.lengthM / 10;
      const pr = v.row + t * dr + (random() - 0.5) * (v.lengthM / 6 / 10);
      const pc = v.col + t * dc;
      const share = weights[k]! / total;
      // σ0 contribution: RCS spread by a unit-integral Gaussian PSF over 100 m² pixels.
      const norm = 1 / (2 * Math.PI * sr * sa * spacing.range * spacing.azimuth);
      for (let y = Math.floor(pr - 4 * sa); y <= Math.ceil(pr + 4 * sa); y++) {
        if (y < 0 || y >= h) continue;
        for (let x = Math.floor(pc - 4 * sr); x <= Math.ceil(pc + 4 * sr); x++) {
          if (x < 0 || x >= w) continue;
          const g = norm * Math.exp(-((y - pr) ** 2) / (2 * sa * sa) - ((x - pc) ** 2) / (2 * sr * sr));
          vh[y * w + x] = vh[y * w + x]! + rcsVh * share * g * specVh[y * w + x]!;
          vv[y * w + x] = vv[y * w + x]! + rcsVv * share * g * specVv[y * w + x]!;
        }
      }
    }
    vessels.push({ row: v.row, col: v.col, lengthM: v.lengthM, headingDeg: v.headingDeg });
  }
  const valid = new Uint8Array(w * h).fill(1);
  return { width: w, height: h, vh, vv, valid, vessels, spacing };
}

/**
 * Uncorrelated clutter for false-alarm-rate tests: L-look gamma speckle (mean `mean`), times a
 * per-pixel gamma texture of shape ν when `textureShape` is given (K-distributed intensity).
 */
export function gammaClutter(width: number, height: number, options: { looks: number; seed: number; mean?: number; textureShape?: number }): Float32Array {
  const random = rng(options.seed);
  const normal = gaussianSampler(random);
  const gamma = gammaSampler(random, normal);
  const out = new Float32Array(width * height);
  const mean = options.mean ?? 1;
  for (let i = 0; i < out.length; i++) {
    const texture = options.textureShape ? gamma(options.textureShape) : 1;
    out[i] = mean * texture * gamma(options.looks);
  }
  return out;
}

/** Greedy one-to-one matching of detection centroids to vessel centres within 100 m. */
export function scoreScene(detections: ReadonlyArray<{ centroidRow: number; centroidCol: number }>, scene: SynthScene): { tp: number; fp: number; fn: number } {
  const pairs: Array<{ d: number; i: number; j: number }> = [];
  detections.forEach((det, i) =>
    scene.vessels.forEach((v, j) => {
      const d = Math.hypot((det.centroidRow - v.row) * scene.spacing.azimuth, (det.centroidCol - v.col) * scene.spacing.range);
      if (d <= 100) pairs.push({ d, i, j });
    }),
  );
  pairs.sort((a, b) => a.d - b.d);
  const di = new Set<number>();
  const vj = new Set<number>();
  for (const p of pairs) {
    if (di.has(p.i) || vj.has(p.j)) continue;
    di.add(p.i);
    vj.add(p.j);
  }
  return { tp: vj.size, fp: detections.length - di.size, fn: scene.vessels.length - vj.size };
}
