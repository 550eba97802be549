import { SIGMA_FLOOR_LINEAR } from './calibrate.js';
import { LutRowInterpolator, NoiseRowInterpolator } from './lut.js';
import type { SafeBand } from './product.js';

/**
 * Calibrated σ0 of single lines of a band, averaged over runs of `runLength` pixels: what a
 * picture of a whole scene needs (a quicklook samples one line in ten or twenty), at the cost
 * of decoding those lines only.
 *
 * Each line is read as DN (decoding, no calibration), DN² is summed over the valid pixels of
 * each run, and the run's mean is calibrated with A and η at the run's centre:
 * σ0 = (mean DN² − η) / A², floored at SIGMA_FLOOR_LINEAR. The LUTs change over tens to
 * hundreds of pixels, so this is the mean of the per-pixel values to within their change
 * across one run; calibrating once per run instead of once per pixel is what keeps a
 * whole-scene picture at a few percent of the scene's analysis.
 */
export class CalibratedRunSampler {
  private readonly lut: LutRowInterpolator;
  private readonly noise: NoiseRowInterpolator | null;
  private readonly a: Float32Array;
  private readonly eta: Float32Array | null;
  private readonly floor: number;
  /** Runs per line: ceil(width / runLength). */
  readonly runs: number;

  constructor(
    private readonly band: SafeBand,
    /** First column and width of the lines read (full-image pixels). */
    private readonly x0: number,
    private readonly width: number,
    private readonly runLength: number,
    options: { denoise: boolean; floor?: number } = { denoise: true },
  ) {
    if (!Number.isInteger(runLength) || runLength < 1) throw new RangeError(`runLength must be a positive integer, got ${runLength}`);
    this.lut = new LutRowInterpolator(band.calibration.vectors.map((v) => ({ line: v.line, pixels: v.pixels, values: v.sigmaNought })));
    this.noise = options.denoise ? new NoiseRowInterpolator(band.noise) : null;
    this.a = new Float32Array(width);
    this.eta = this.noise ? new Float32Array(width) : null;
    this.runs = Math.ceil(width / runLength);
    this.floor = options.floor ?? SIGMA_FLOOR_LINEAR;
  }

  /** Run means of line `line` (linear σ0), NaN for a run without a valid pixel. */
  async line(line: number): Promise<Float32Array> {
    const { data, valid } = await this.band.readWindow({ x0: this.x0, y0: line, width: this.width, height: 1 }, { quantity: 'dn', denoise: false });
    const out = new Float32Array(this.runs);
    const { a, eta, runLength, width } = this;
    let calibrated = false;
    for (let r = 0; r < this.runs; r++) {
      const from = r * runLength;
      const to = Math.min(width, from + runLength);
      let sum = 0;
      let n = 0;
      for (let x = from; x < to; x++) {
        if (!valid[x]) continue;
        const dn = data[x]!;
        sum += dn * dn;
        n++;
      }
      if (n === 0) {
        out[r] = Number.NaN;
        continue;
      }
      if (!calibrated) {
        // LUT rows only for lines that hold data (a scene's corners are often empty).
        this.lut.fillRow(line, this.x0, a);
        if (this.noise && eta) this.noise.fillRow(line, this.x0, eta);
        calibrated = true;
      }
      const c = (from + to - 1) >> 1;
      const ac = a[c]!;
      const power = sum / n - (eta ? eta[c]! : 0);
      const value = power / (ac * ac);
      out[r] = value > this.floor ? value : this.floor;
    }
    return out;
  }
}
