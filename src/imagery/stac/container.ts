/**
 * A GRD product assembled from a STAC item's assets, seen as the files of a SAFE product so
 * that the SAFE reader (manifest, annotation, calibration, noise, measurement placement,
 * geolocation, σ0) runs unchanged on it: the same values as from the folder.
 *
 * Planetary Computer's `sentinel-1-grd` items (and stactools' layout) carry
 *   safe-manifest, schema-product-<pol>, schema-calibration-<pol>, schema-noise-<pol>, <pol>
 * where <pol> is vv, vh, hh or hv, and the measurement is one COG per polarisation
 * (`measurement/iw-vv.tiff` there). Each asset gets the SAFE path its role has
 * (`annotation/<name>.xml`, `annotation/calibration/calibration-<name>.xml`, …,
 * `measurement/<name>.tiff`), named after the band's annotation file so that the reader's
 * swath + polarisation matching pairs them. XML is read whole, COGs by range, both through
 * the process's RemoteAccess (signing, byte cache, retries).
 *
 * An item without those assets whose product is one SAFE zip (CDSE's `PRODUCT`, a `.zip`
 * href) is read inside the zip by range instead (./remoteZip.ts).
 */
import type { GeoTIFF } from 'geotiff';
import { ImageryError } from '../errors.js';
import { cacheKeyOf } from '../remote/objects.js';
import { isRemoteHref, remoteAccess, type RemoteAccess } from '../remote/access.js';
import type { SafeContainer } from '../container/types.js';
import { parseMemberName } from '../container/names.js';
import { openRemoteZipContainer, type RemoteZipContainer } from './remoteZip.js';

export interface StacAssetLike {
  href: string;
  roles?: string[];
  [k: string]: unknown;
}

export interface StacItemLike {
  type?: string;
  id: string;
  collection?: string;
  properties?: Record<string, unknown>;
  assets?: Record<string, StacAssetLike>;
  links?: { rel: string; href: string }[];
}

const POLS = ['vv', 'vh', 'hh', 'hv'] as const;

/** Asset keys per role, in order of preference (Planetary Computer / stactools first). */
const MANIFEST_KEYS = ['safe-manifest', 'safe_manifest', 'manifest'];
const keysFor = (role: 'annotation' | 'calibration' | 'noise', pol: string): string[] =>
  role === 'annotation'
    ? [`schema-product-${pol}`, `schema_product_${pol}`, `annotation-${pol}`, `product-${pol}`]
    : [`schema-${role}-${pol}`, `schema_${role}_${pol}`, `${role}-${pol}`];

function find(assets: Record<string, StacAssetLike>, keys: string[]): StacAssetLike | undefined {
  for (const k of keys) if (assets[k] && typeof assets[k]!.href === 'string') return assets[k];
  return undefined;
}

function resolveAgainst(href: string, base: string | undefined): string {
  if (isRemoteHref(href) || !base) return href;
  return new URL(href, base).toString();
}

/** A SAFE member name for a band whose annotation file is not SAFE-named: built from the product name. */
function syntheticAnnotationName(productId: string, pol: string): string {
  const m = /^(S1[A-D])_([A-Z0-9]{2})_GRD[HMF]_1S[DS][VH]_(\d{8}T\d{6})_(\d{8}T\d{6})_(\d{6})_([0-9A-F]{6})/i.exec(productId);
  if (!m) throw new ImageryError('INVALID_PRODUCT', `${productId}: annotation assets are not SAFE-named and the item id is not a GRD product name`);
  return `${m[1]!.toLowerCase()}-${m[2]!.toLowerCase()}-grd-${pol}-${m[3]!.toLowerCase()}-${m[4]!.toLowerCase()}-${m[5]}-${m[6]!.toLowerCase()}-001.xml`;
}

interface Member {
  href: string;
  kind: 'xml' | 'tiff';
}

export class StacAssetContainer implements SafeContainer {
  private readonly members = new Map<string, Member>();
  private readonly texts = new Map<string, Promise<string>>();

  constructor(
    readonly location: string,
    readonly productName: string,
    private readonly collection: string | undefined,
    members: Record<string, Member>,
    private readonly access: RemoteAccess,
  ) {
    for (const [k, v] of Object.entries(members)) this.members.set(k, v);
  }

  files(): string[] {
    return [...this.members.keys()].sort();
  }

  private member(relativePath: string): Member {
    const m = this.members.get(relativePath);
    if (!m) throw new ImageryError('INVALID_PRODUCT', `${relativePath} is not among the assets of ${this.location}`);
    return m;
  }

  /** Href of a member (for tests and diagnostics). */
  hrefOf(relativePath: string): string {
    return this.member(relativePath).href;
  }

  readText(relativePath: string): Promise<string> {
    const { href } = this.member(relativePath);
    let t = this.texts.get(href);
    if (!t) {
      // Through the byte cache: a second job on the scene reads its XML from disk.
      const obj = this.access.object(href, this.collection);
      t = this.access.cache
        .size(obj)
        .then((n) => this.access.cache.read(obj, 0, n))
        .then((b) => new TextDecoder().decode(b))
        // A server without range support still serves small XML whole (COGs never are).
        .catch((e: unknown) => (e instanceof ImageryError && /byte ranges/.test(e.message) ? obj.text() : Promise.reject(e)));
      this.texts.set(href, t);
      t.catch(() => this.texts.delete(href));
    }
    return t;
  }

  openTiff(relativePath: string): Promise<GeoTIFF> {
    return this.access.openTiff(this.member(relativePath).href, this.collection);
  }

  async close(): Promise<void> {}
}

/** The SAFE-shaped container of a GRD STAC item (assets resolved against `base`). */
export function stacItemContainer(item: StacItemLike, location: string, access: RemoteAccess = remoteAccess(), base?: string): StacAssetContainer {
  const assets = item.assets ?? {};
  const self = base ?? item.links?.find((l) => l.rel === 'self')?.href ?? location;
  const productId = String(item.properties?.['s1:product_identifier'] ?? item.id);
  const resolve = (asset: StacAssetLike | string, base: string | undefined): string =>
    resolveAgainst(typeof asset === 'string' ? asset : access.assetHref(asset as { href: string; alternate?: Record<string, { href?: string }> }), base);
  const members: Record<string, Member> = {};
  const manifest = find(assets, MANIFEST_KEYS);
  if (!manifest) throw new ImageryError('INVALID_PRODUCT', `STAC item ${item.id} has no safe-manifest asset`);
  members['manifest.safe'] = { href: resolve(manifest, self), kind: 'xml' };
  let bands = 0;
  for (const pol of POLS) {
    const annotation = find(assets, keysFor('annotation', pol));
    if (!annotation) continue;
    const calibration = find(assets, keysFor('calibration', pol));
    const noise = find(assets, keysFor('noise', pol));
    if (!calibration || !noise) throw new ImageryError('INVALID_PRODUCT', `STAC item ${item.id}: ${pol} has an annotation but no calibration or noise asset`);
    const annHref = resolve(annotation, self);
    const base = cacheKeyOf(annHref).split('/').pop() ?? '';
    const name = parseMemberName(base) ? base : syntheticAnnotationName(productId, pol);
    members[`annotation/${name}`] = { href: annHref, kind: 'xml' };
    members[`annotation/calibration/calibration-${name}`] = { href: resolve(calibration, self), kind: 'xml' };
    members[`annotation/calibration/noise-${name}`] = { href: resolve(noise, self), kind: 'xml' };
    const data = assets[pol];
    if (data && typeof data.href === 'string') members[`measurement/${name.replace(/\.xml$/, '.tiff')}`] = { href: resolve(data, self), kind: 'tiff' };
    bands++;
  }
  if (bands === 0) throw new ImageryError('INVALID_PRODUCT', `STAC item ${item.id} has no schema-product-<pol> annotation asset`);
  return new StacAssetContainer(location, productId.replace(/\.SAFE$/i, ''), item.collection, members, access);
}

/**
 * The item's SAFE zip asset: Copernicus Data Space's `PRODUCT`, or any asset whose href ends
 * in `.zip`. Used when the item does not carry the SAFE's XML and measurements as assets.
 */
export function productZipAsset(item: StacItemLike): StacAssetLike | undefined {
  const assets = item.assets ?? {};
  const zip = Object.entries(assets).find(([k, a]) => typeof a?.href === 'string' && (k === 'PRODUCT' || /\.zip$/i.test(cacheKeyOf(a.href))));
  return zip?.[1];
}

/** True when the item carries the manifest and at least one measurement as separate assets. */
function hasSafeAssets(item: StacItemLike): boolean {
  const assets = item.assets ?? {};
  return !!find(assets, MANIFEST_KEYS) && POLS.some((pol) => !!find(assets, keysFor('annotation', pol)) && typeof assets[pol]?.href === 'string');
}

/** Fetch a STAC item (http(s) or s3 URL) and build its container. */
export async function openStacItemContainer(itemUrl: string, access: RemoteAccess = remoteAccess()): Promise<StacAssetContainer | RemoteZipContainer> {
  let item: StacItemLike;
  try {
    item = JSON.parse(await access.readText(itemUrl)) as StacItemLike;
  } catch (e) {
    if (e instanceof ImageryError) throw e;
    throw new ImageryError('INVALID_PRODUCT', `${cacheKeyOf(itemUrl)} is not a STAC item (JSON): ${(e as Error).message}`, { cause: e });
  }
  if (!item || item.type !== 'Feature' || typeof item.id !== 'string') {
    throw new ImageryError('INVALID_PRODUCT', `${cacheKeyOf(itemUrl)} is not a STAC item`);
  }
  const productType = String(item.properties?.['sar:product_type'] ?? '').toUpperCase();
  if (productType && productType !== 'GRD') {
    throw new ImageryError('UNSUPPORTED_PRODUCT', `${item.id} is a ${productType} item; only GRD is read`);
  }
  const self = item.links?.find((l) => l.rel === 'self')?.href ?? itemUrl;
  const zip = hasSafeAssets(item) ? undefined : productZipAsset(item);
  if (zip) return openRemoteZipContainer(resolveAgainst(access.assetHref(zip as { href: string }), self), itemUrl, access, item.collection);
  return stacItemContainer(item, itemUrl, access, self);
}
