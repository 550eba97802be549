import { SIGMA_FLOOR_LINEAR } from './calibrate.js';
import { interpolate1d, LutRowInterpolator, type SparseVector } from './lut.js';
import type { NoiseLut } from './noise.js';
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
 *
 * A and η are evaluated at the run centres only: the LUT vectors are resampled there once
 * (readCalibratedWindow's interpolation, src/imagery/safe/lut.ts, at those columns), so a
 * line costs its decoding and one pass over its pixels.
 */
export class CalibratedRunSampler {
  private readonly a: LutRowInterpolator;
  private readonly aRow: Float32Array;
  private readonly noise: { range: LutRowInterpolator; azimuth: NoiseLut['azimuthVectors']; row: Float32Array } | null;
  /** Full-image column of each run's centre. */
  private readonly centres: Float64Array;
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
    const runs = Math.ceil(width / runLength);
    this.runs = runs;
    this.centres = Float64Array.from({ length: runs }, (_, r) => x0 + ((r * runLength + Math.min(width, (r + 1) * runLength) - 1) >> 1));
    // Each vector resampled at the run centres and indexed by run: the interpolator then works
    // between lines over `runs` values instead of every pixel of the line.
    const runIndex = Float64Array.from({ length: runs }, (_, r) => r);
    const atCentres = (vectors: readonly SparseVector[]) =>
      new LutRowInterpolator(vectors.map((v) => ({ line: v.line, pixels: runIndex, values: Float64Array.from(this.centres, (c) => interpolate1d(v.pixels, v.values, c)) })));
    this.a = atCentres(band.calibration.vectors.map((v) => ({ line: v.line, pixels: v.pixels, values: v.sigmaNought })));
    this.aRow = new Float32Array(runs);
    this.noise = options.denoise
      ? { range: atCentres(band.noise.rangeVectors), azimuth: band.noise.azimuthVectors, row: new Float32Array(runs) }
      : null;
    this.floor = options.floor ?? SIGMA_FLOOR_LINEAR;
  }

  /** η at the run centres of `line`: the range LUT × the azimuth factor of the sub-swath block holding each centre (NoiseRowInterpolator's rule). */
  private noiseRow(line: number): Float32Array | null {
    if (!this.noise) return null;
    const { range, azimuth, row } = this.noise;
    range.fillRow(line, 0, row);
    for (const block of azimuth) {
      if (line < block.firstAzimuthLine || line > block.lastAzimuthLine) continue;
      const factor = interpolate1d(block.lines, block.values, line);
      for (let r = 0; r < this.runs; r++) {
        const c = this.centres[r]!;
        if (c >= block.firstRangeSample && c <= block.lastRangeSample) row[r]! *= factor;
      }
    }
    return row;
  }

  /**
   * The same calibration of means made elsewhere: run r's mean DN² is sumDn2[r] / counts[r]
   * (a quicklook's blocks pooled by the detector's tiles, each over several lines), calibrated
   * with A and η at line `line` and the run's centre as line() does; NaN where a count is 0.
   */
  fromSums(line: number, sumDn2: ArrayLike<number>, counts: ArrayLike<number>): Float32Array {
    const out = new Float32Array(this.runs);
    const a = this.aRow;
    this.a.fillRow(line, 0, a);
    const eta = this.noiseRow(line);
    for (let r = 0; r < this.runs; r++) {
      const n = counts[r]!;
      if (n === 0) {
        out[r] = Number.NaN;
        continue;
      }
      const ar = a[r]!;
      const value = (sumDn2[r]! / n - (eta ? eta[r]! : 0)) / (ar * ar);
      out[r] = value > this.floor ? value : this.floor;
    }
    return out;
  }

  /** Run means of line `line` (linear σ0), NaN for a run without a valid pixel. */
  async line(line: number): Promise<Float32Array> {
    // DN: 0 where invalid (no data, the TIFF's no-data value, outside the measurement).
    const { data } = await this.band.readWindow({ x0: this.x0, y0: line, width: this.width, height: 1 }, { quantity: 'dn', denoise: false });
    const out = new Float32Array(this.runs);
    const { aRow: a, runLength, width } = this;
    this.a.fillRow(line, 0, a);
    const eta = this.noiseRow(line);
    for (let r = 0; r < this.runs; r++) {
      const to = Math.min(width, (r + 1) * runLength);
      let sum = 0;
      let n = 0;
      for (let x = r * runLength; x < to; x++) {
        const dn = data[x]!;
        if (dn === 0) continue;
        sum += dn * dn;
        n++;
      }
      if (n === 0) {
        out[r] = Number.NaN;
        continue;
      }
      const ar = a[r]!;
      const value = (sum / n - (eta ? eta[r]! : 0)) / (ar * ar);
      out[r] = value > this.floor ? value : this.floor;
    }
    return out;
  }
}
