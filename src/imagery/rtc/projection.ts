import proj4 from 'proj4';
import { ImageryError } from '../errors.js';

/**
 * proj4 definitions for the CRSs Sentinel-1 analysis-ready products use: WGS84 UTM
 * zones (EPSG 32601–32660 north, 32701–32760 south), WGS84 geographic and web mercator.
 * Built from the code rather than looked up, so no EPSG database is needed.
 */
export function proj4DefinitionForEpsg(epsg: number): string | null {
  if (epsg === 4326) return '+proj=longlat +datum=WGS84 +no_defs';
  if (epsg === 3857) {
    return '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs';
  }
  const zone = epsg % 100;
  if (zone >= 1 && zone <= 60) {
    if (epsg - zone === 32600) return `+proj=utm +zone=${zone} +datum=WGS84 +units=m +no_defs`;
    if (epsg - zone === 32700) return `+proj=utm +zone=${zone} +south +datum=WGS84 +units=m +no_defs`;
  }
  return null;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

export interface LonLatTransform {
  /** Map x/y → [lon, lat]. */
  toLonLat(x: number, y: number): [number, number];
  /** [lon, lat] → map x/y. */
  fromLonLat(lon: number, lat: number): [number, number];
}

export function lonLatTransform(epsg: number): LonLatTransform {
  const definition = proj4DefinitionForEpsg(epsg);
  if (!definition) throw new ImageryError('UNSUPPORTED_CRS', `no proj4 definition for EPSG:${epsg}`);
  if (epsg === 4326) {
    return { toLonLat: (x, y) => [x, y], fromLonLat: (lon, lat) => [lon, lat] };
  }
  const converter = proj4(definition, WGS84);
  return {
    toLonLat: (x, y) => {
      const [lon, lat] = converter.forward([x, y]);
      return [lon!, lat!];
    },
    fromLonLat: (lon, lat) => {
      const [x, y] = converter.inverse([lon, lat]);
      return [x!, y!];
    },
  };
}
