import { ImageryError } from '../errors.js';
import { child, children, numberList, parseXml, requireNumber, requireText, utcTime } from '../xml.js';

/** Thermal noise power (DN² units) along range at one line. */
export interface NoiseRangeVector {
  line: number;
  azimuthTime: string;
  pixels: Float64Array;
  values: Float32Array;
}

/**
 * IPF ≥ 2.9: a multiplicative azimuth profile for one block of one sub-swath,
 * valid for lines firstAzimuthLine…lastAzimuthLine and pixels firstRangeSample…lastRangeSample.
 */
export interface NoiseAzimuthVector {
  swath: string;
  firstAzimuthLine: number;
  firstRangeSample: number;
  lastAzimuthLine: number;
  lastRangeSample: number;
  lines: Float64Array;
  values: Float32Array;
}

export interface NoiseLut {
  /**
   * `range-azimuth`: IPF ≥ 2.9, noise = range LUT × azimuth LUT.
   * `range`: older products, one `noiseVector` list (noise = range LUT alone).
   */
  layout: 'range-azimuth' | 'range';
  rangeVectors: NoiseRangeVector[];
  azimuthVectors: NoiseAzimuthVector[];
}

export function parseNoise(xml: string, what = 'noise annotation'): NoiseLut {
  const doc = parseXml(xml, what);
  const root = child(doc, 'noise');
  if (root === undefined) throw new ImageryError('INVALID_PRODUCT', `${what} has no <noise> root`);

  const modern = children(root, 'noiseRangeVectorList', 'noiseRangeVector');
  const legacy = children(root, 'noiseVectorList', 'noiseVector');
  const layout = modern.length > 0 ? 'range-azimuth' : 'range';
  const valueTag = layout === 'range-azimuth' ? 'noiseRangeLut' : 'noiseLut';

  const rangeVectors = (layout === 'range-azimuth' ? modern : legacy).map((v, i): NoiseRangeVector => {
    const label = `${what} range vector ${i}`;
    const pixels = numberList(child(v, 'pixel'), `${label} pixel`);
    const values = Float32Array.from(numberList(child(v, valueTag), `${label} ${valueTag}`));
    if (values.length !== pixels.length) {
      throw new ImageryError('INVALID_PRODUCT', `${label}: ${values.length} values for ${pixels.length} pixels`);
    }
    return {
      line: requireNumber(child(v, 'line'), `${label} line`),
      azimuthTime: utcTime(child(v, 'azimuthTime'), `${label} azimuthTime`),
      pixels,
      values,
    };
  });
  if (rangeVectors.length === 0) throw new ImageryError('INVALID_PRODUCT', `${what} has no noise range vectors`);
  rangeVectors.sort((a, b) => a.line - b.line);

  const azimuthVectors = children(root, 'noiseAzimuthVectorList', 'noiseAzimuthVector').map((v, i): NoiseAzimuthVector => {
    const label = `${what} azimuth vector ${i}`;
    const lines = numberList(child(v, 'line'), `${label} line`);
    const values = Float32Array.from(numberList(child(v, 'noiseAzimuthLut'), `${label} noiseAzimuthLut`));
    if (values.length !== lines.length || lines.length === 0) {
      throw new ImageryError('INVALID_PRODUCT', `${label}: ${values.length} values for ${lines.length} lines`);
    }
    return {
      swath: requireText(child(v, 'swath'), `${label} swath`).toUpperCase(),
      firstAzimuthLine: requireNumber(child(v, 'firstAzimuthLine'), `${label} firstAzimuthLine`),
      firstRangeSample: requireNumber(child(v, 'firstRangeSample'), `${label} firstRangeSample`),
      lastAzimuthLine: requireNumber(child(v, 'lastAzimuthLine'), `${label} lastAzimuthLine`),
      lastRangeSample: requireNumber(child(v, 'lastRangeSample'), `${label} lastRangeSample`),
      lines,
      values,
    };
  });

  return { layout, rangeVectors, azimuthVectors };
}
