import { XMLParser } from 'fast-xml-parser';
import { ImageryError } from './errors.js';

/** A parsed XML element: child elements by local name, attributes as `@_name`, text as `#text`. */
export type XmlNode = { [key: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

/** Elements that repeat in Sentinel-1 XML even when a list happens to hold one item. */
const LIST_ELEMENTS = new Set([
  'calibrationVector',
  'noiseRangeVector',
  'noiseAzimuthVector',
  'noiseVector',
  'geolocationGridPoint',
  'metadataObject',
  'dataObject',
  'transmitterReceiverPolarisation',
  'Item',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  removeNSPrefix: true,
  // Keep every value a string: "001" must stay "001", and number lists are parsed by us.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => LIST_ELEMENTS.has(name),
});

export function parseXml(text: string, what: string): XmlNode {
  try {
    return parser.parse(text) as XmlNode;
  } catch (cause) {
    throw new ImageryError('INVALID_PRODUCT', `cannot parse ${what} as XML`, { cause });
  }
}

function isNode(value: XmlValue | undefined): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follow a path of element names; arrays on the way resolve to their first element. */
export function child(node: XmlValue | undefined, ...path: string[]): XmlValue | undefined {
  let current: XmlValue | undefined = node;
  for (const name of path) {
    if (Array.isArray(current)) current = current[0];
    if (!isNode(current)) return undefined;
    current = current[name];
  }
  return current;
}

export function children(node: XmlValue | undefined, ...path: string[]): XmlNode[] {
  const value = child(node, ...path);
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: XmlNode[] = [];
  for (const item of list) {
    // Plain-text repeated elements become `{ '#text': … }` so callers see one shape.
    if (typeof item === 'string') out.push({ '#text': item });
    else if (isNode(item)) out.push(item);
  }
  return out;
}

/** Text content of an element (with or without attributes). */
export function text(node: XmlValue | undefined): string | undefined {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return text(node[0]);
  if (isNode(node)) {
    const t = node['#text'];
    return typeof t === 'string' ? t : undefined;
  }
  return undefined;
}

export function attr(node: XmlValue | undefined, name: string): string | undefined {
  if (Array.isArray(node)) return attr(node[0], name);
  if (!isNode(node)) return undefined;
  const v = node[`@_${name}`];
  return typeof v === 'string' ? v : undefined;
}

export function requireText(node: XmlValue | undefined, what: string): string {
  const t = text(node);
  if (t === undefined || t === '') throw new ImageryError('INVALID_PRODUCT', `missing ${what}`);
  return t;
}

export function requireNumber(node: XmlValue | undefined, what: string): number {
  const value = Number(requireText(node, what));
  if (!Number.isFinite(value)) throw new ImageryError('INVALID_PRODUCT', `${what} is not a number`);
  return value;
}

export function optionalNumber(node: XmlValue | undefined): number | undefined {
  const t = text(node);
  if (t === undefined || t === '') return undefined;
  const value = Number(t);
  return Number.isFinite(value) ? value : undefined;
}

/** Parse a whitespace-separated number list ("0 40 80 …") without intermediate arrays of strings. */
export function numberList(node: XmlValue | undefined, what: string): Float64Array {
  const s = text(node);
  if (s === undefined) throw new ImageryError('INVALID_PRODUCT', `missing ${what}`);
  const declared = Number(attr(node, 'count'));
  const out: number[] = [];
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 32;
    const space = c === 32 || c === 9 || c === 10 || c === 13;
    if (!space && start < 0) start = i;
    else if (space && start >= 0) {
      const v = Number(s.slice(start, i));
      if (!Number.isFinite(v)) throw new ImageryError('INVALID_PRODUCT', `${what} holds a non-number`);
      out.push(v);
      start = -1;
    }
  }
  if (Number.isInteger(declared) && declared !== out.length) {
    throw new ImageryError('INVALID_PRODUCT', `${what}: count=${declared} but ${out.length} values`);
  }
  return Float64Array.from(out);
}

/** Sentinel-1 times are UTC without a zone designator; make them unambiguous ISO 8601. */
export function utcTime(node: XmlValue | undefined, what: string): string {
  const t = requireText(node, what);
  return /[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`;
}
