import { ImageryError } from '../errors.js';
import { child, children, parseXml, requireNumber, requireText, text, utcTime, optionalNumber } from '../xml.js';

/** One point of the annotation's geolocation grid, in full-image line/pixel. */
export interface GeolocationPoint {
  azimuthTime: string;
  slantRangeTime: number;
  line: number;
  pixel: number;
  latitude: number;
  longitude: number;
  height: number;
  incidenceAngle: number;
  elevationAngle: number;
}

/** The parts of a product annotation (`annotation/s1?-…xml`) that pixels need. */
export interface ProductAnnotation {
  missionId: string;
  productType: string;
  polarisation: string;
  mode: string;
  swath: string;
  imageNumber: string;
  startTime: string;
  stopTime: string;
  firstLineTime: string;
  lastLineTime: string;
  passDirection: 'ascending' | 'descending';
  /** Degrees from north, as annotated (negative for ascending passes west of north). */
  platformHeading: number;
  /** Ground range pixel spacing (m) for GRD. */
  rangePixelSpacing: number;
  azimuthPixelSpacing: number;
  azimuthTimeInterval: number;
  /** Full-image size; a cropped measurement TIFF is a window of this. */
  numberOfSamples: number;
  numberOfLines: number;
  incidenceAngleMidSwath: number | null;
  radarFrequency: number | null;
  geolocationGrid: GeolocationPoint[];
}

/** The only element of `xml` named `name`, as text (null unless it opens and closes exactly once, unprefixed). */
function onlyElement(xml: string, name: string): string | null {
  const open = new RegExp(`<${name}[\\s>]`, 'g');
  const starts = [...xml.matchAll(open)];
  const close = `</${name}>`;
  const end = xml.indexOf(close);
  if (starts.length !== 1 || end < 0 || xml.indexOf(close, end + 1) >= 0 || end < starts[0]!.index) return null;
  return xml.slice(starts[0]!.index, end + close.length);
}

/**
 * The annotation with only the elements parseAnnotation reads (header, product and image
 * information, geolocation grid), nested as in the product: about a twentieth of an IW GRD
 * annotation, whose orbit, attitude, Doppler and antenna lists no pixel needs, and which every
 * thread that opens the product would otherwise parse. Null (parse it all) when the document
 * is not laid out plainly enough to cut (an element missing, repeated, or namespaced).
 */
function readPart(xml: string): string | null {
  if (/<!\[CDATA\[|<!--/.test(xml)) return null;
  const header = onlyElement(xml, 'adsHeader');
  const info = onlyElement(onlyElement(xml, 'generalAnnotation') ?? '', 'productInformation');
  const image = onlyElement(onlyElement(xml, 'imageAnnotation') ?? '', 'imageInformation');
  const grid = onlyElement(xml, 'geolocationGrid');
  if (!header || !info || !image || !grid || !/<product[\s>]/.test(xml)) return null;
  return `<product>${header}<generalAnnotation>${info}</generalAnnotation><imageAnnotation>${image}</imageAnnotation>${grid}</product>`;
}

export function parseAnnotation(xml: string, what = 'product annotation'): ProductAnnotation {
  const doc = parseXml(readPart(xml) ?? xml, what);
  const product = child(doc, 'product');
  if (product === undefined) throw new ImageryError('INVALID_PRODUCT', `${what} has no <product> root`);
  const header = child(product, 'adsHeader');
  const info = child(product, 'generalAnnotation', 'productInformation');
  const image = child(product, 'imageAnnotation', 'imageInformation');

  const pass = requireText(child(info, 'pass'), 'productInformation/pass').toLowerCase();
  if (pass !== 'ascending' && pass !== 'descending') {
    throw new ImageryError('INVALID_PRODUCT', `${what}: unknown pass "${pass}"`);
  }

  const geolocationGrid = children(product, 'geolocationGrid', 'geolocationGridPointList', 'geolocationGridPoint').map(
    (p): GeolocationPoint => ({
      azimuthTime: utcTime(child(p, 'azimuthTime'), 'geolocationGridPoint/azimuthTime'),
      slantRangeTime: requireNumber(child(p, 'slantRangeTime'), 'geolocationGridPoint/slantRangeTime'),
      line: requireNumber(child(p, 'line'), 'geolocationGridPoint/line'),
      pixel: requireNumber(child(p, 'pixel'), 'geolocationGridPoint/pixel'),
      latitude: requireNumber(child(p, 'latitude'), 'geolocationGridPoint/latitude'),
      longitude: requireNumber(child(p, 'longitude'), 'geolocationGridPoint/longitude'),
      height: requireNumber(child(p, 'height'), 'geolocationGridPoint/height'),
      incidenceAngle: requireNumber(child(p, 'incidenceAngle'), 'geolocationGridPoint/incidenceAngle'),
      elevationAngle: requireNumber(child(p, 'elevationAngle'), 'geolocationGridPoint/elevationAngle'),
    }),
  );
  if (geolocationGrid.length < 4) throw new ImageryError('INVALID_PRODUCT', `${what}: geolocation grid has < 4 points`);

  return {
    missionId: requireText(child(header, 'missionId'), 'adsHeader/missionId'),
    productType: requireText(child(header, 'productType'), 'adsHeader/productType').toUpperCase(),
    polarisation: requireText(child(header, 'polarisation'), 'adsHeader/polarisation').toUpperCase(),
    mode: requireText(child(header, 'mode'), 'adsHeader/mode').toUpperCase(),
    swath: requireText(child(header, 'swath'), 'adsHeader/swath').toUpperCase(),
    imageNumber: text(child(header, 'imageNumber')) ?? '',
    startTime: utcTime(child(header, 'startTime'), 'adsHeader/startTime'),
    stopTime: utcTime(child(header, 'stopTime'), 'adsHeader/stopTime'),
    firstLineTime: utcTime(child(image, 'productFirstLineUtcTime'), 'productFirstLineUtcTime'),
    lastLineTime: utcTime(child(image, 'productLastLineUtcTime'), 'productLastLineUtcTime'),
    passDirection: pass,
    platformHeading: requireNumber(child(info, 'platformHeading'), 'platformHeading'),
    rangePixelSpacing: requireNumber(child(image, 'rangePixelSpacing'), 'rangePixelSpacing'),
    azimuthPixelSpacing: requireNumber(child(image, 'azimuthPixelSpacing'), 'azimuthPixelSpacing'),
    azimuthTimeInterval: requireNumber(child(image, 'azimuthTimeInterval'), 'azimuthTimeInterval'),
    numberOfSamples: requireNumber(child(image, 'numberOfSamples'), 'numberOfSamples'),
    numberOfLines: requireNumber(child(image, 'numberOfLines'), 'numberOfLines'),
    incidenceAngleMidSwath: optionalNumber(child(image, 'incidenceAngleMidSwath')) ?? null,
    radarFrequency: optionalNumber(child(info, 'radarFrequency')) ?? null,
    geolocationGrid,
  };
}
