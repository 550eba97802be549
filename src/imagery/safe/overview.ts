import { SIGMA_FLOOR_LINEAR } from './calibrate.js';
import { interpolate1d, LutRowInterpolator, NoiseRowInterpolator } from './lut.js';
import type { SafeBand } from './product.js';

/**
 * Calibrated σ0 of single lines of a band, averaged over runs of `runLength` pixels: what a
 * picture of a whole scene needs (a quicklook samples about one line in ten or twenty), at the
 * cost of decoding those lines only.
 *
 * Each line is read as DN (decoding, no calibration), DN² is averaged over the valid pixels of
 * each run, and the mean is calibrated once with A_σ and the noise η at the run's centre:
 * σ0 = (mean(DN²) − η) / A², floored at SIGMA_FLOOR_LINEAR. A and η change over tens to
 * hundreds of pixels, so this is the mean of the per-pixel σ0 to within their change across
 * one run — and, with noise removal, the mean before the floor: a dark run keeps its level
 * where per-pixel values would have been clamped.
 */
export class CalibratedRunSampler {
  /** A at the runs' centres: the LUT's vectors evaluated there once, interpolated between lines per call. */
  private readonly lut: LutRowInterpolator;
  private readonly a: Float32Array;
  /** η along the whole line (its sub-swath blocks are by range sample), read at the run centres. */
  private readonly noise: NoiseRowInterpolator | null;
  private readonly eta: Float32Array | null;
  private readonly centres: Int32Array;
  private readonly floor: number;
  /** Runs per line: ceil(width / runLength). */
  readonly runs: number;

  constructor(
    private readonly band: SafeBand,
    /** First column and width of the lines read (full-image pixels). */
    private readonly x0: number,
    private readonly width: number,
    private readonly runLength: number,
    options: { denoise?: boolean; floor?: number } = {},
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
    this.centres = Int32Array.from(centres, (c) => c - x0);
    this.noise = options.denoise ? new NoiseRowInterpolator(band.noise) : null;
    this.eta = this.noise ? new Float32Array(width) : null;
    this.floor = options.floor ?? SIGMA_FLOOR_LINEAR;
  }

  /** Run means of line `line` (linear σ0), NaN for a run without a valid pixel. */
  async line(line: number): Promise<Float32Array> {
    const { data, valid } = await this.band.readWindow({ x0: this.x0, y0: line, width: this.width, height: 1 }, { quantity: 'dn', denoise: false });
    const out = new Float32Array(this.runs);
    const { a, eta, runLength, width, centres } = this;
    this.lut.fillRow(line, 0, a);
    if (this.noise && eta) this.noise.fillRow(line, this.x0, eta);
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
      const value = (sum / n - (eta ? eta[centres[r]!]! : 0)) / (ar * ar);
      out[r] = value > this.floor ? value : this.floor;
    }
    return out;
  }
}
