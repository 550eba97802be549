/**
 * The georeferencing of a σ0 GeoTIFF as a pixel ↔ lon/lat model:
 *
 * - an affine geotransform (ModelTransformation, or one tie point + ModelPixelScale) in a
 *   CRS named by EPSG code in the GeoKeys — any code proj4 knows (WGS84 geographic and UTM,
 *   web mercator, UPS, NAD83) plus ETRS89 geographic/UTM and ETRS89-LAEA (EPSG:3035);
 * - or ground control points: several ModelTiepoint entries and no pixel scale, as GDAL
 *   writes them (`gdal_translate -gcp`, a Sentinel-1 measurement, SNAP's GeoTIFF export of a
 *   product in radar geometry), fitted with GDAL's polynomial (./gcp.ts). GCPs without a CRS
 *   are taken as WGS84 lon/lat when every one lies in range.
 *
 * PixelIsPoint rasters are shifted to the corner convention as GDAL does (for GCPs too,
 * GTIFF_POINT_GEO_IGNORE=FALSE), so a file means the same here as in QGIS.
 */
import type { GeoTIFFImage } from 'geotiff';
import proj4 from 'proj4';
import { ImageryError } from '../errors.js';
import { proj4DefinitionForEpsg } from '../rtc/projection.js';
import { GcpTransform, type Gcp } from './gcp.js';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/** proj4 definition of an EPSG code, or null when neither proj4 nor this table knows it. */
export function proj4ForEpsg(epsg: number): string | null {
  const own = proj4DefinitionForEpsg(epsg);
  if (own) return own;
  const known = proj4.defs(`EPSG:${epsg}`);
  if (known) return `EPSG:${epsg}`;
  if (epsg === 4258) return '+proj=longlat +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +no_defs';
  if (epsg >= 25828 && epsg <= 25838) return `+proj=utm +zone=${epsg - 25800} +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs`;
  if (epsg === 3035) return '+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs';
  return null;
}

/** Whether a CRS is geographic (degrees). */
function isGeographic(definition: string): boolean {
  const def = definition.startsWith('EPSG:') ? proj4.defs(definition) : null;
  if (def) return (def as { projName?: string }).projName === 'longlat';
  return /\+proj=longlat\b/.test(definition);
}

export interface PixelGeocoding {
  kind: 'geotransform' | 'gcps';
  /** EPSG code of the CRS the georeferencing is expressed in. */
  epsg: number;
  /** Image (line, pixel) → [lon, lat]; integer = pixel centre. */
  pixelToLonLat(line: number, pixel: number): [number, number];
  lonLatToPixel(lon: number, lat: number): { line: number; pixel: number };
  /** For kind 'geotransform': GDAL's six coefficients (corner convention). */
  geotransform?: [number, number, number, number, number, number];
  /** For kind 'gcps': the fitted model. */
  gcp?: GcpTransform;
}

function crsOf(image: GeoTIFFImage, what: string): number | null {
  const keys = (image.getGeoKeys() ?? {}) as Record<string, unknown>;
  const model = keys.GTModelTypeGeoKey;
  const projected = keys.ProjectedCSTypeGeoKey;
  const geographic = keys.GeographicTypeGeoKey;
  for (const code of model === 2 ? [geographic] : [projected, geographic]) {
    if (typeof code === 'number' && code > 0 && code !== 32767) return code;
  }
  if ((typeof projected === 'number' && projected === 32767) || (typeof geographic === 'number' && geographic === 32767)) {
    throw new ImageryError(
      'UNSUPPORTED_CRS',
      `${what} has a user-defined CRS (no EPSG code); reproject it to one, e.g. gdalwarp -t_srs EPSG:4326`,
    );
  }
  return null;
}

function lonLatConverter(epsg: number, what: string): { toLonLat(x: number, y: number): [number, number]; fromLonLat(lon: number, lat: number): [number, number] } {
  if (epsg === 4326) return { toLonLat: (x, y) => [x, y], fromLonLat: (lon, lat) => [lon, lat] };
  const definition = proj4ForEpsg(epsg);
  if (!definition) {
    throw new ImageryError('UNSUPPORTED_CRS', `${what} is in EPSG:${epsg}, which this reader has no definition for; reproject it, e.g. gdalwarp -t_srs EPSG:4326`);
  }
  const converter = proj4(definition, WGS84);
  return {
    toLonLat: (x, y) => converter.forward([x, y]) as [number, number],
    fromLonLat: (lon, lat) => converter.inverse([lon, lat]) as [number, number],
  };
}

const isPixelIsPoint = (image: GeoTIFFImage): boolean => (image.getGeoKeys() as Record<string, unknown> | null)?.GTRasterTypeGeoKey === 2;

/**
 * The pixel ↔ lon/lat model of a GeoTIFF image; ImageryError 'INVALID_PRODUCT' when it has
 * no georeferencing (no CRS, or only GDAL's pixel-offset transformation of a crop).
 */
export function pixelGeocoding(image: GeoTIFFImage, what: string): PixelGeocoding {
  const fd = image.getFileDirectory();
  const tie = fd.getValue('ModelTiepoint') as ArrayLike<number> | undefined;
  const scale = fd.getValue('ModelPixelScale') as ArrayLike<number> | undefined;
  const matrix = fd.getValue('ModelTransformation') as ArrayLike<number> | undefined;
  const pointShift = isPixelIsPoint(image) ? 0.5 : 0;

  // Ground control points: more than one tie point and no scale/transformation.
  if (tie && tie.length >= 12 && !scale && !matrix) {
    const gcps: Gcp[] = [];
    for (let k = 0; k + 5 < tie.length; k += 6) {
      gcps.push({ pixel: tie[k]! + pointShift, line: tie[k + 1]! + pointShift, x: tie[k + 3]!, y: tie[k + 4]! });
    }
    let epsg = crsOf(image, what);
    if (epsg === null) {
      const degrees = gcps.every((g) => Math.abs(g.x) <= 360 && Math.abs(g.y) <= 90);
      if (!degrees) throw new ImageryError('INVALID_PRODUCT', `${what} has ground control points but no CRS in its GeoKeys`);
      epsg = 4326;
    }
    const crs = lonLatConverter(epsg, what);
    // Longitudes are fitted unwrapped around the first GCP (a scene across the antimeridian).
    const geographic = epsg === 4326 || isGeographic(proj4ForEpsg(epsg) ?? '');
    const x0 = gcps[0]!.x;
    if (geographic) for (const g of gcps) g.x += 360 * Math.round((x0 - g.x) / 360);
    const model = GcpTransform.fit(gcps);
    const wrap = (lon: number): number => ((((lon + 180) % 360) + 360) % 360) - 180;
    return {
      kind: 'gcps',
      epsg,
      gcp: model,
      pixelToLonLat: (line, pixel) => {
        const [x, y] = model.forward(pixel + 0.5, line + 0.5);
        const [lon, lat] = crs.toLonLat(x, y);
        return [geographic ? wrap(lon) : lon, lat];
      },
      lonLatToPixel: (lon, lat) => {
        let [x, y] = crs.fromLonLat(lon, lat);
        if (geographic) x += 360 * Math.round((x0 - x) / 360);
        const [p, l] = model.inverse(x, y);
        return { line: l - 0.5, pixel: p - 0.5 };
      },
    };
  }

  let gt: [number, number, number, number, number, number] | null = null;
  if (matrix && matrix.length >= 8) gt = [matrix[3]!, matrix[0]!, matrix[1]!, matrix[7]!, matrix[4]!, matrix[5]!];
  else if (tie && tie.length >= 6 && scale && scale.length >= 2) {
    gt = [tie[3]! - tie[0]! * scale[0]!, scale[0]!, 0, tie[4]! + tie[1]! * scale[1]!, 0, -scale[1]!];
  }
  const epsg = gt ? crsOf(image, what) : null;
  if (!gt || epsg === null) {
    throw new ImageryError(
      'INVALID_PRODUCT',
      gt
        ? `${what} has a pixel transformation but no CRS (GeoKeys): it is not georeferenced`
        : `${what} has no georeferencing (neither a CRS with a geotransform nor ground control points)`,
    );
  }
  if (pointShift) gt = [gt[0] - 0.5 * gt[1] - 0.5 * gt[2], gt[1], gt[2], gt[3] - 0.5 * gt[4] - 0.5 * gt[5], gt[4], gt[5]];
  const [ox, a, b, oy, d, e] = gt;
  const det = a * e - b * d;
  if (!Number.isFinite(det) || det === 0) throw new ImageryError('INVALID_PRODUCT', `${what}: singular geotransform`);
  const crs = lonLatConverter(epsg, what);
  return {
    kind: 'geotransform',
    epsg,
    geotransform: gt,
    pixelToLonLat: (line, pixel) => {
      const px = pixel + 0.5;
      const py = line + 0.5;
      return crs.toLonLat(ox + px * a + py * b, oy + px * d + py * e);
    },
    lonLatToPixel: (lon, lat) => {
      const [x, y] = crs.fromLonLat(lon, lat);
      const dx = x - ox;
      const dy = y - oy;
      return { pixel: (e * dx - b * dy) / det - 0.5, line: (-d * dx + a * dy) / det - 0.5 };
    },
  };
}
