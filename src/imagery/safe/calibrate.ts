import { BlockReader } from '../blockreader.js';
import { assertWindow, intersectWindows, type PixelWindow } from '../window.js';
import type { CalibrationLut } from './calibration.js';
import { LutRowInterpolator, NoiseRowInterpolator } from './lut.js';
import type { MeasurementPlacement } from './measurement.js';
import type { NoiseLut } from './noise.js';

export type CalibrationQuantity = 'sigma0' | 'beta0' | 'gamma0' | 'dn';

/**
 * Calibrated values are clamped to this floor (linear, = −50 dB) wherever noise
 * subtraction leaves DN² − η ≤ 0 or the value falls below it: the pixel has data, the
 * backscatter is just under the noise floor, and dB of it must stay finite.
 */
export const SIGMA_FLOOR_LINEAR = 1e-5;

export interface ReadWindowOptions {
  quantity: CalibrationQuantity;
  /** Subtract the thermal-noise LUT before calibrating (ignored for `dn`). */
  denoise: boolean;
  /** Override SIGMA_FLOOR_LINEAR; 0 keeps exact zeros. */
  floor?: number;
  /**
   * Arrays of window.width × window.height to write the result into (they are the result's
   * `data` and `valid`; every element is written) instead of fresh ones: a caller that reads
   * tile after tile reuses them, sparing the allocation, page faults and collection of ~5 B
   * per pixel per window.
   */
  into?: WindowArrays;
  /**
   * Called once the window's DN are read, before anything else is done to them (SAFE bands;
   * a σ0 raster holds no DN and ignores it): `dn` is the window row-major, 0 outside the
   * measurement and where there is no data, or the TIFF's `nodata` value. A caller takes what it
   * needs of the raw DN there — an oil-slick tile its quicklook copy's DN² sums
   * (src/analysis/common/quicklookCopy.ts) — without a second read of the window.
   */
  onDn?: (dn: Float32Array, nodata: number) => void;
}

/** A window's result arrays (ReadWindowOptions.into). */
export interface WindowArrays {
  data: Float32Array;
  valid: Uint8Array;
}

/**
 * `into`'s arrays when given (checked against the window's size, then cleared), else fresh ones.
 * `written`: the part of the window (full-image coordinates, inside it) whose data the caller
 * overwrites before reading it — left as it is in `into.data`, 4 B per pixel not cleared.
 */
export function windowArrays(window: PixelWindow, into: WindowArrays | undefined, written?: PixelWindow | null): WindowArrays {
  const n = window.width * window.height;
  if (!into) return { data: new Float32Array(n), valid: new Uint8Array(n) };
  if (into.data.length !== n || into.valid.length !== n) throw new RangeError(`readWindow: into must hold ${window.width} × ${window.height} values`);
  into.valid.fill(0);
  if (!written) {
    into.data.fill(0);
    return into;
  }
  const { width } = window;
  const top = written.y0 - window.y0;
  const bottom = top + written.height;
  const left = written.x0 - window.x0;
  const right = left + written.width;
  into.data.fill(0, 0, top * width);
  into.data.fill(0, bottom * width);
  if (left > 0 || right < width) {
    for (let y = top; y < bottom; y++) {
      into.data.fill(0, y * width, y * width + left);
      into.data.fill(0, y * width + right, (y + 1) * width);
    }
  }
  return into;
}

export interface CalibratedWindow {
  /** Row-major window.width × window.height; linear power, or raw DN for `dn`; 0 where invalid. */
  data: Float32Array;
  /** 1 where the measurement has data (DN > 0, not the TIFF's no-data, inside the TIFF). */
  valid: Uint8Array;
  window: PixelWindow;
}

/** What a band needs to turn a window of DN into calibrated values. */
export interface CalibrationInputs {
  reader: BlockReader;
  placement: MeasurementPlacement;
  /** The TIFF's GDAL no-data value, if any (65535 in some placeholders). */
  nodata: number | null;
  /** Full-image window that holds measurement pixels. */
  validWindow: PixelWindow;
  calibration: CalibrationLut;
  noise: NoiseLut;
}

const LUT_FIELD = { sigma0: 'sigmaNought', beta0: 'betaNought', gamma0: 'gamma', dn: 'dn' } as const;

/**
 * σ0 = (DN² − η) / A_σ², β0 and γ0 alike with their own LUT (ESA, "Sentinel-1 Level 1
 * Detected Products: radiometric calibration" and "Thermal denoising of products generated
 * by the S-1 IPF"). A and η are bilinear in (line, pixel) between LUT vectors; A is
 * interpolated first and then squared, as SNAP does.
 */
export async function readCalibratedWindow(
  inputs: CalibrationInputs,
  window: PixelWindow,
  options: ReadWindowOptions,
): Promise<CalibratedWindow> {
  assertWindow(window);
  const { width } = window;
  const inside = intersectWindows(window, inputs.validWindow);
  // The reader writes every pixel of `inside` (the measurement's pixels in the window).
  const { data, valid } = windowArrays(window, options.into, inside);
  if (!inside) return { data, valid, window };

  const { lineOffset, pixelOffset } = inputs.placement;
  const nodata = inputs.nodata ?? 0;
  const xa = inside.x0 - window.x0;
  const xb = xa + inside.width;
  // DN only: each chunk of rows is checked as the reader puts it in `data` (still in cache).
  const dnRows = options.quantity === 'dn' && !options.onDn;
  const toWindowRow = window.y0 - lineOffset;
  // DN lands straight in `data` and is calibrated in place: one allocation per window.
  await inputs.reader.read(
    { x0: inside.x0 - pixelOffset, y0: inside.y0 - lineOffset, width: inside.width, height: inside.height },
    0,
    data,
    width,
    window.x0 - pixelOffset,
    toWindowRow,
    dnRows ? (r0, r1) => { for (let y = r0 - toWindowRow; y < r1 - toWindowRow; y++) dnSpan(data, valid, y * width + xa, y * width + xb, nodata); } : undefined,
  );
  if (dnRows) return { data, valid, window };
  options.onDn?.(data, nodata);
  const floor = options.floor ?? SIGMA_FLOOR_LINEAR;

  if (options.quantity === 'dn') {
    for (let y = inside.y0 - window.y0; y < inside.y0 - window.y0 + inside.height; y++) dnSpan(data, valid, y * width + xa, y * width + xb, nodata);
    return { data, valid, window };
  }

  const field = LUT_FIELD[options.quantity];
  const lut = new LutRowInterpolator(
    inputs.calibration.vectors.map((v) => ({ line: v.line, pixels: v.pixels, values: v[field] })),
  );
  const noise = options.denoise ? new NoiseRowInterpolator(inputs.noise) : null;
  // A and η are interpolated pixel by pixel inside the calibration loop, with the roundings
  // of the row buffers fillRow would have written (Math.fround): the same values as filling a
  // row of each first, without the two row passes (and not at all for pixels without data).
  let a: Float32Array | null = null;
  let eta: Float32Array | null = null;
  for (let y = inside.y0 - window.y0; y < inside.y0 - window.y0 + inside.height; y++) {
    const line = window.y0 + y;
    const start = y * width + xa;
    const A = lut.rowPair(line, inside.x0, inside.width);
    if (!noise) {
      calibrateSpan(data, valid, start, 0, inside.width, A.r0, A.r1, A.t, null, null, 0, 1, nodata, floor);
      continue;
    }
    const N = noise.rowParts(line, inside.x0, inside.width);
    if (N) {
      for (let j = 0; j < N.factors.length; j++) {
        calibrateSpan(data, valid, start, N.starts[j]!, N.starts[j + 1]!, A.r0, A.r1, A.t, N.r0, N.r1, N.t, N.factors[j]!, nodata, floor);
      }
      continue;
    }
    // Azimuth blocks overlap on this row: fillRow's buffers (a pixel's η multiplied twice).
    a ??= new Float32Array(inside.width);
    eta ??= new Float32Array(inside.width);
    lut.fillRow(line, inside.x0, a);
    noise.fillRow(line, inside.x0, eta);
    calibrateSpan(data, valid, start, 0, inside.width, a, a, 0, eta, eta, 0, 1, nodata, floor);
  }
  return { data, valid, window };
}

/**
 * DN data[start … end − 1] kept where there is data (valid 1), 0 where DN is 0 or `nodata`. A
 * plain function per row, as calibrateSpan, with a float64 local for the no-data value: the loop
 * inside the async readCalibratedWindow compared each DN with a tagged number.
 */
function dnSpan(data: Float32Array, valid: Uint8Array, start: number, end: number, nodata: number): void {
  const nd = nodata * 1;
  for (let i = start; i < end; i++) {
    const dn = data[i]!;
    if (dn === 0 || dn === nd) data[i] = 0;
    else valid[i] = 1;
  }
}

/**
 * Columns k0 … k1 − 1 of one row (data index start + k) from DN to calibrated values in place:
 * A = fround(a0 + ta · (a1 − a0)); with noise (n0 non-null) η = fround(fround(n0 + tn · (n1 −
 * n0)) · factor), value = (DN² − η) / A², floored. A plain function (called per row
 * segment) rather than a loop inside the async readCalibratedWindow.
 */
function calibrateSpan(
  data: Float32Array,
  valid: Uint8Array,
  start: number,
  k0: number,
  k1: number,
  a0: Float32Array,
  a1: Float32Array,
  ta: number,
  n0: Float32Array | null,
  n1: Float32Array | null,
  tn: number,
  factor: number,
  nodata: number,
  floor: number,
): void {
  // A float64 copy of the floor: with the parameter itself, `value > floor ? value : floor` was a
  // tagged value, a heap number allocated for every pixel (~100 MB of garbage per 2,560² tile).
  const fl = floor * 1;
  if (n0 === null || n1 === null) {
    for (let k = k0; k < k1; k++) {
      const i = start + k;
      const dn = data[i]!;
      if (dn === 0 || dn === nodata) {
        data[i] = 0;
        continue;
      }
      const ak = Math.fround(a0[k]! + ta * (a1[k]! - a0[k]!));
      const value = (dn * dn) / (ak * ak);
      data[i] = value > fl ? value : fl;
      valid[i] = 1;
    }
    return;
  }
  for (let k = k0; k < k1; k++) {
    const i = start + k;
    const dn = data[i]!;
    if (dn === 0 || dn === nodata) {
      data[i] = 0;
      continue;
    }
    const ak = Math.fround(a0[k]! + ta * (a1[k]! - a0[k]!));
    const eta = Math.fround(Math.fround(n0[k]! + tn * (n1[k]! - n0[k]!)) * factor);
    const value = (dn * dn - eta) / (ak * ak);
    data[i] = value > fl ? value : fl;
    valid[i] = 1;
  }
}
