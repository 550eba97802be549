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
  const { width, height } = window;
  const data = new Float32Array(width * height);
  const valid = new Uint8Array(width * height);
  const inside = intersectWindows(window, inputs.validWindow);
  if (!inside) return { data, valid, window };

  const { lineOffset, pixelOffset } = inputs.placement;
  // DN lands straight in `data` and is calibrated in place: one allocation per window.
  await inputs.reader.read(
    { x0: inside.x0 - pixelOffset, y0: inside.y0 - lineOffset, width: inside.width, height: inside.height },
    0,
    data,
    width,
    window.x0 - pixelOffset,
    window.y0 - lineOffset,
  );
  const nodata = inputs.nodata ?? 0;
  const floor = options.floor ?? SIGMA_FLOOR_LINEAR;
  const xa = inside.x0 - window.x0;
  const xb = xa + inside.width;

  if (options.quantity === 'dn') {
    for (let y = inside.y0 - window.y0; y < inside.y0 - window.y0 + inside.height; y++) {
      for (let x = xa; x < xb; x++) {
        const i = y * width + x;
        const dn = data[i]!;
        if (dn === 0 || dn === nodata) data[i] = 0;
        else valid[i] = 1;
      }
    }
    return { data, valid, window };
  }

  const field = LUT_FIELD[options.quantity];
  const lut = new LutRowInterpolator(
    inputs.calibration.vectors.map((v) => ({ line: v.line, pixels: v.pixels, values: v[field] })),
  );
  const noise = options.denoise ? new NoiseRowInterpolator(inputs.noise) : null;
  const a = new Float32Array(inside.width);
  const eta = noise ? new Float32Array(inside.width) : null;

  for (let y = inside.y0 - window.y0; y < inside.y0 - window.y0 + inside.height; y++) {
    const line = window.y0 + y;
    lut.fillRow(line, inside.x0, a);
    if (noise && eta) noise.fillRow(line, inside.x0, eta);
    const row = y * width;
    for (let x = xa; x < xb; x++) {
      const i = row + x;
      const dn = data[i]!;
      if (dn === 0 || dn === nodata) {
        data[i] = 0;
        continue;
      }
      const k = x - xa;
      const ak = a[k]!;
      const power = eta ? dn * dn - eta[k]! : dn * dn;
      const value = power / (ak * ak);
      data[i] = value > floor ? value : floor;
      valid[i] = 1;
    }
  }
  return { data, valid, window };
}
