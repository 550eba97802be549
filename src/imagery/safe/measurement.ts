import type { GeoTIFFImage } from 'geotiff';
import { ImageryError } from '../errors.js';

/**
 * Where the measurement TIFF's pixel grid sits in the full image the annotation describes:
 * TIFF (row, col) ↔ full-image (line, pixel) = (row + lineOffset, col + pixelOffset).
 *
 * Real products: the TIFF is the full image (its tie points are GCPs), offsets 0.
 * Crops made with GDAL from such a TIFF keep no CRS but carry a pixel geotransform
 * whose origin is the crop's corner — the North-Sea sample has
 * ModelTransformation = [1 0 0 4000; 0 1 0 4000], i.e. x = col + 4000, y = row + 4000.
 */
export interface MeasurementPlacement {
  lineOffset: number;
  pixelOffset: number;
  /** TIFF size. */
  width: number;
  height: number;
  /** How the offset was found, for diagnostics. */
  source: 'full-image' | 'model-transformation' | 'tiepoint-scale';
}

function hasCrs(image: GeoTIFFImage): boolean {
  const keys = image.getGeoKeys();
  if (!keys) return false;
  return Boolean(keys.ProjectedCSTypeGeoKey || keys.GeographicTypeGeoKey);
}

function integerOffset(value: number, what: string): number {
  const rounded = Math.round(value);
  if (Math.abs(value - rounded) > 1e-6) {
    throw new ImageryError('INVALID_PRODUCT', `${what} ${value} is not a whole pixel`);
  }
  return rounded;
}

export function measurementPlacement(image: GeoTIFFImage, fullWidth: number, fullHeight: number, what: string): MeasurementPlacement {
  const fd = image.getFileDirectory();
  const width = image.getWidth();
  const height = image.getHeight();
  const transform = fd.getValue('ModelTransformation') as ArrayLike<number> | undefined;
  const tiepoint = fd.getValue('ModelTiepoint') as ArrayLike<number> | undefined;
  const scale = fd.getValue('ModelPixelScale') as ArrayLike<number> | undefined;

  const unit = (v: number): boolean => Math.abs(v - 1) < 1e-9;
  const zero = (v: number): boolean => Math.abs(v) < 1e-9;

  if (!hasCrs(image) && transform && transform.length >= 8) {
    const [a, b, , c, d, e, , f] = Array.from(transform);
    if (!unit(a!) || !zero(b!) || !zero(d!) || !unit(e!)) {
      throw new ImageryError('INVALID_PRODUCT', `${what}: pixel geotransform is not a pure offset (${Array.from(transform).join(' ')})`);
    }
    return {
      pixelOffset: integerOffset(c!, `${what} pixel offset`),
      lineOffset: integerOffset(f!, `${what} line offset`),
      width,
      height,
      source: 'model-transformation',
    };
  }
  if (!hasCrs(image) && tiepoint && tiepoint.length === 6 && scale && scale.length >= 2) {
    const [i, j, , x, y] = Array.from(tiepoint);
    const [sx, sy] = Array.from(scale);
    // GeoTIFF: x = X + (col − I)·Sx, y = Y − (row − J)·Sy. Lines grow with rows only when Sy = −1.
    if (!unit(sx!) || !unit(-sy!)) {
      throw new ImageryError('INVALID_PRODUCT', `${what}: pixel scale ${sx} × ${sy} is not one full-image pixel`);
    }
    return {
      pixelOffset: integerOffset(x! - i!, `${what} pixel offset`),
      lineOffset: integerOffset(y! + j! * sy!, `${what} line offset`),
      width,
      height,
      source: 'tiepoint-scale',
    };
  }
  if (width === fullWidth && height === fullHeight) {
    return { pixelOffset: 0, lineOffset: 0, width, height, source: 'full-image' };
  }
  throw new ImageryError(
    'INVALID_PRODUCT',
    `${what} is ${width}×${height} but the annotation describes ${fullWidth}×${fullHeight}, and no pixel geotransform says where it lies`,
  );
}
