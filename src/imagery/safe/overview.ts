import { SIGMA_FLOOR_LINEAR } from './calibrate.js';
import { interpolate1d, LutRowInterpolator } from './lut.js';
import type { SafeBand } from './product.js';

/**
 * Calibrated σ0 of single lines of a band, averaged over runs of `runLength` pixels: what a
 * picture of a whole scene needs (a quicklook samples about one line in ten or twenty), at the
 * cost of decoding those lines only.
 *
 * Each line is read as DN (decoding, no calibration), DN² is averaged over the valid pixels of
 * each run, and the mean is calibrated once with A_σ at the run's centre: σ0 = mean(DN²) / A²,
 * floored at SIGMA_FLOOR_LINEAR. A changes over tens to hundreds of pixels, so this is the
 * mean of the per-pixel σ0 to within A's change across one run. No thermal-noise removal (as
 * the ship detector reads σ0): for a picture it would only clamp the darkest sea to the floor.
 */
export class CalibratedRunSampler {
  /** A at the runs' centres: the LUT's vectors evaluated there once, interpolated between lines per call. */
  private readonly lut: LutRowInterpolator;
  private readonly a: Float32Array;
  private readonly floor: number;
  /** Runs per line: ceil(width / runLength). */
  readonly runs: number;

  constructor(
    private readonly band: SafeBand,
    /** First column and width of the lines read (full-image pixels). */
    private readonly x0: number,
    private readonly width: number,
    private readonly runLength: number,
    options: { floor?: number } = {},
  ) {
    if (!Number.isInteger(runLength) || runLength < 1) throw new RangeError(`runLength must be a positive integer, got ${runLength}`);
    this.runs = Math.ceil(width / runLength);
    const centres = Float64Array.from({ length: this.runs }, (_, r) => x0 + ((r * runLength + Math.min(width, (r + 1) * runLength) - 1) >> 1));
    // Each vector resampled at the run centres, indexed by run: the LUT then interpolates
    // between lines over `runs` values instead of the line's every pixel.
    const runIndex = Float64Array.from({ length: this.runs }, (_, r) => r);
    this.lut = new LutRowInterpolator(
      band.calibration.vectors.map((v) => ({ line: v.line, pixels: runIndex, values: Float64Array.from(centres, (c) => interpolate1d(v.pixels, v.sigmaNought, c)) })),
    );
    this.a = new Float32Array(this.runs);
    this.floor = options.floor ?? SIGMA_FLOOR_LINEAR;
  }

  /** Run means of line `line` (linear σ0), NaN for a run without a valid pixel. */
  async line(line: number): Promise<Float32Array> {
    const { data, valid } = await this.band.readWindow({ x0: this.x0, y0: line, width: this.width, height: 1 }, { quantity: 'dn', denoise: false });
    const out = new Float32Array(this.runs);
    const { a, runLength, width } = this;
    this.lut.fillRow(line, 0, a);
    for (let r = 0; r < this.runs; r++) {
      const to = Math.min(width, (r + 1) * runLength);
      let sum = 0;
      let n = 0;
      for (let x = r * runLength; x < to; x++) {
        if (!valid[x]) continue;
        const dn = data[x]!;
        sum += dn * dn;
        n++;
      }
      if (n === 0) {
        out[r] = Number.NaN;
        continue;
      }
      const ar = a[r]!;
      const value = sum / n / (ar * ar);
      out[r] = value > this.floor ? value : this.floor;
    }
    return out;
  }
}
