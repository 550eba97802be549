import { ImageryError } from '../errors.js';
import { child, children, numberList, optionalNumber, parseXml, requireNumber, utcTime } from '../xml.js';

/**
 * One calibration vector: the LUTs A(pixel) at one line. Sparse in both directions
 * (every ~667 lines, every 40 pixels in IW GRD); values in between are interpolated.
 */
export interface CalibrationVector {
  line: number;
  azimuthTime: string;
  pixels: Float64Array;
  sigmaNought: Float32Array;
  betaNought: Float32Array;
  gamma: Float32Array;
  dn: Float32Array;
}

export interface CalibrationLut {
  absoluteCalibrationConstant: number;
  vectors: CalibrationVector[];
}

export function parseCalibration(xml: string, what = 'calibration annotation'): CalibrationLut {
  const doc = parseXml(xml, what);
  const root = child(doc, 'calibration');
  if (root === undefined) throw new ImageryError('INVALID_PRODUCT', `${what} has no <calibration> root`);
  const vectors = children(root, 'calibrationVectorList', 'calibrationVector').map((v, i): CalibrationVector => {
    const label = `${what} vector ${i}`;
    const pixels = numberList(child(v, 'pixel'), `${label} pixel`);
    const lut = (name: string): Float32Array => {
      const values = Float32Array.from(numberList(child(v, name), `${label} ${name}`));
      if (values.length !== pixels.length) {
        throw new ImageryError('INVALID_PRODUCT', `${label}: ${name} has ${values.length} values for ${pixels.length} pixels`);
      }
      return values;
    };
    return {
      line: requireNumber(child(v, 'line'), `${label} line`),
      azimuthTime: utcTime(child(v, 'azimuthTime'), `${label} azimuthTime`),
      pixels,
      sigmaNought: lut('sigmaNought'),
      betaNought: lut('betaNought'),
      gamma: lut('gamma'),
      dn: lut('dn'),
    };
  });
  if (vectors.length === 0) throw new ImageryError('INVALID_PRODUCT', `${what} has no calibration vectors`);
  vectors.sort((a, b) => a.line - b.line);
  return {
    absoluteCalibrationConstant: optionalNumber(child(root, 'calibrationInformation', 'absoluteCalibrationConstant')) ?? 1,
    vectors,
  };
}
