import { ImageryError } from '../errors.js';
import { closeCounterClockwise, type LonLatPolygon } from '../window.js';
import { attr, child, children, parseXml, text, type XmlNode } from '../xml.js';

/** What `manifest.safe` says about the product as a whole. */
export interface SafeManifest {
  /** `S1A`, `S1B`, … */
  missionId: string;
  /** `GRD`, `SLC`, `OCN`, `RAW`. */
  productType: string;
  /** `IW`, `EW`, `SM`, `WV`. */
  mode: string;
  /** `S` standard, `A` annotation-only, … */
  productClass: string | null;
  /** As listed, e.g. `['VV', 'VH']`. */
  polarisations: string[];
  passDirection: 'ascending' | 'descending' | null;
  absoluteOrbit: number | null;
  relativeOrbit: number | null;
  startTime: string | null;
  stopTime: string | null;
  /** IPF version, e.g. `003.52`; decides the noise LUT layout (≥ 2.9 has azimuth vectors). */
  ipfVersion: string | null;
  /** `gml:coordinates` of the frame: (lat,lon) pairs turned into a lon/lat ring. */
  footprint: LonLatPolygon | null;
}

function metadataObject(doc: XmlNode, id: string): XmlNode | undefined {
  return children(doc, 'XFDU', 'metadataSection', 'metadataObject').find((o) => attr(o, 'ID') === id);
}

function wrapData(doc: XmlNode, id: string): XmlNode | undefined {
  const value = child(metadataObject(doc, id), 'metadataWrap', 'xmlData');
  return typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function intOrNull(s: string | undefined): number | null {
  if (s === undefined) return null;
  const n = Number.parseInt(s, 10);
  return Number.isFinite(n) ? n : null;
}

/** `"lat,lon lat,lon …"` → closed counter-clockwise lon/lat ring. */
export function parseGmlCoordinates(coordinates: string): LonLatPolygon {
  const ring: [number, number][] = [];
  for (const pair of coordinates.trim().split(/\s+/)) {
    const [lat, lon] = pair.split(',').map(Number);
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) {
      throw new ImageryError('INVALID_PRODUCT', `bad gml:coordinates pair "${pair}"`);
    }
    ring.push([lon!, lat!]);
  }
  if (ring.length < 3) throw new ImageryError('INVALID_PRODUCT', 'gml:coordinates has fewer than 3 points');
  return { type: 'Polygon', coordinates: [closeCounterClockwise(ring)] };
}

export function parseManifest(xml: string): SafeManifest {
  const doc = parseXml(xml, 'manifest.safe');
  if (child(doc, 'XFDU') === undefined) throw new ImageryError('INVALID_PRODUCT', 'manifest.safe has no XFDU root');

  const general = child(wrapData(doc, 'generalProductInformation'), 'standAloneProductInformation');
  const platform = child(wrapData(doc, 'platform'), 'platform');
  const orbit = child(wrapData(doc, 'measurementOrbitReference'), 'orbitReference');
  const period = child(wrapData(doc, 'acquisitionPeriod'), 'acquisitionPeriod');
  const frame = child(wrapData(doc, 'measurementFrameSet'), 'frameSet', 'frame', 'footPrint', 'coordinates');
  const processing = child(wrapData(doc, 'processing'), 'processing');

  const family = text(child(platform, 'familyName')) ?? '';
  const number = text(child(platform, 'number')) ?? '';
  const missionId = family.toUpperCase().startsWith('SENTINEL-1') ? `S1${number.toUpperCase()}` : `${family}${number}`;

  const productType = text(child(general, 'productType'));
  if (!productType) throw new ImageryError('INVALID_PRODUCT', 'manifest.safe names no productType');

  const pass = text(child(orbit, 'extension', 'orbitProperties', 'pass'))?.toLowerCase();
  const orbitNumbers = children(orbit, 'orbitNumber');
  const relativeNumbers = children(orbit, 'relativeOrbitNumber');
  const start = text(child(period, 'startTime'));
  const stop = text(child(period, 'stopTime'));
  const frameText = text(frame);

  return {
    missionId,
    productType: productType.toUpperCase(),
    mode: (text(child(platform, 'instrument', 'extension', 'instrumentMode', 'mode')) ?? '').toUpperCase(),
    productClass: text(child(general, 'productClass')) ?? null,
    polarisations: children(general, 'transmitterReceiverPolarisation')
      .map((p) => text(p)?.toUpperCase())
      .filter((p): p is string => !!p),
    passDirection: pass === 'ascending' || pass === 'descending' ? pass : null,
    absoluteOrbit: intOrNull(text(orbitNumbers.find((o) => attr(o, 'type') === 'start') ?? orbitNumbers[0])),
    relativeOrbit: intOrNull(text(relativeNumbers.find((o) => attr(o, 'type') === 'start') ?? relativeNumbers[0])),
    startTime: start ? (start.endsWith('Z') ? start : `${start}Z`) : null,
    stopTime: stop ? (stop.endsWith('Z') ? stop : `${stop}Z`) : null,
    ipfVersion: attr(child(processing, 'facility', 'software'), 'version') ?? null,
    footprint: frameText ? parseGmlCoordinates(frameText) : null,
  };
}
