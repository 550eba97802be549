/**
 * SceneCatalog over any STAC API (item-search conformance): POST /search with intersects,
 * datetime, collections and the `query` extension on `sat:orbit_state`, following `next`
 * links. Defaults follow Planetary Computer (collections sentinel-1-grd / sentinel-1-rtc,
 * one asset per polarisation named vv/vh/hh/hv).
 */
import { CatalogError, type SceneCatalog } from '../port.ts';
import { productKey, sceneIdFromPath, tryParseProductName } from '../productName.ts';
import { compareScenes, dedupePasses, matchesQuery } from '../query.ts';
import type { SceneQuery, SceneRecord } from '../types.ts';
import { DEFAULT_ASSET_KEYS, tryStacItemToScene, type AssetKeyConfig, type StacItem } from './item.ts';
import { TransientError, isRetryableStatus, parseRetryAfter, withRetries, type RetryPolicy } from '../../imagery/remote/retry.ts';
import { productZipAsset, type StacItemLike } from '../../imagery/stac/container.ts';

/** An asset href made absolute against the item's self link when it can be. */
function resolveRemote(href: string, base: string | undefined): string {
  try {
    return base ? new URL(href, base).toString() : href;
  } catch {
    return href;
  }
}

export interface StacCatalogOptions {
  /** API root, e.g. https://planetarycomputer.microsoft.com/api/stac/v1 (no trailing /search). */
  url: string;
  /** Collection ids per product type. Default Planetary Computer's. */
  collections?: { GRD?: string[]; RTC?: string[] };
  assetKeys?: AssetKeyConfig;
  /** Signs asset hrefs of returned scenes (e.g. Planetary Computer SAS tokens). */
  signHref?: (href: string) => Promise<string>;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** Items per page requested. Default 100. */
  pageSize?: number;
  /** Pages followed per search at most. Default 20. */
  maxPages?: number;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Retries of search requests on 429, 5xx and timeouts (default 5 attempts with backoff). */
  retry?: RetryPolicy;
  /** Sees every item a search returns (Planetary Computer's signer learns asset containers). */
  onItem?: (item: StacItem) => void;
}

export const DEFAULT_STAC_COLLECTIONS = { GRD: ['sentinel-1-grd'], RTC: ['sentinel-1-rtc'] };

interface FeatureCollection {
  type?: string;
  features?: unknown[];
  links?: StacLink[];
}

interface StacLink {
  rel: string;
  href: string;
  method?: string;
  body?: Record<string, unknown>;
  merge?: boolean;
  headers?: Record<string, string>;
}

export class StacSceneCatalog implements SceneCatalog {
  private readonly root: string;
  private readonly collections: { GRD: string[]; RTC: string[] };
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly opts: StacCatalogOptions) {
    this.root = opts.url.replace(/\/+$/, '').replace(/\/search$/, '');
    this.collections = {
      GRD: opts.collections?.GRD ?? DEFAULT_STAC_COLLECTIONS.GRD,
      RTC: opts.collections?.RTC ?? DEFAULT_STAC_COLLECTIONS.RTC,
    };
    this.fetchImpl = opts.fetch ?? fetch;
  }

  private collectionsFor(types: string[] | undefined): string[] {
    const wanted = types && types.length > 0 ? types : ['GRD', 'RTC'];
    const out: string[] = [];
    for (const t of wanted) {
      const cs = t === 'GRD' ? this.collections.GRD : t === 'RTC' ? this.collections.RTC : [];
      for (const c of cs) if (!out.includes(c)) out.push(c);
    }
    return out;
  }

  /** The /search request body for a query (exported for tests and logs). */
  searchBody(q: SceneQuery): Record<string, unknown> {
    const body: Record<string, unknown> = {
      collections: this.collectionsFor(q.productTypes),
      limit: this.opts.pageSize ?? 100,
    };
    if (q.intersects) body.intersects = q.intersects;
    if (q.start || q.end) body.datetime = `${q.start ? q.start.toISOString() : '..'}/${q.end ? q.end.toISOString() : '..'}`;
    if (q.orbitDirection) body.query = { 'sat:orbit_state': { eq: q.orbitDirection } };
    return body;
  }

  async search(q: SceneQuery): Promise<SceneRecord[]> {
    const collections = this.collectionsFor(q.productTypes);
    if (collections.length === 0) return [];
    const items = await this.fetchAllPages(this.searchBody(q));
    // Servers without the query extension ignore it; filters are re-applied here.
    const scenes = this.toScenes(items).filter((s) => matchesQuery(s, q, false));
    let out = dedupePasses(scenes).sort(compareScenes);
    if (q.limit !== undefined) out = out.slice(0, q.limit);
    return this.sign(out);
  }

  async get(sceneId: string): Promise<SceneRecord | null> {
    const raw = sceneId.trim();
    const id = sceneIdFromPath(raw);
    const name = tryParseProductName(id);
    const ids = [id];
    if (name?.uniqueId) ids.push(productKey(name));
    // An item id that merely contains a product name (`…_rtc`) is also asked for as given.
    if (raw !== id && !/\.(zip|safe)$/i.test(raw) && !raw.includes('/')) ids.unshift(raw);
    const collections = this.collectionsFor(name ? (name.productType === 'GRD' ? ['GRD'] : []) : undefined);
    if (collections.length === 0) return null;
    const items = await this.fetchAllPages({ collections, ids, limit: ids.length * 4 }, 2);
    const scenes = this.toScenes(items);
    const exact = scenes.find((s) => s.sceneId === ids[0]) ?? scenes.find((s) => s.sceneId === id);
    const found = exact ?? dedupePasses(scenes.filter((s) => ids.includes(s.sceneId)))[0] ?? null;
    return found ? (await this.sign([found]))[0]! : null;
  }

  private toScenes(items: unknown[]): SceneRecord[] {
    const out: SceneRecord[] = [];
    for (const it of items) {
      // Search results are Features; stac_version is not required of them here.
      if (!it || typeof it !== 'object' || (it as StacItem).type !== 'Feature') continue;
      const item = it as StacItem;
      this.opts.onItem?.(item);
      const self = item.links?.find((l) => l.rel === 'self')?.href;
      const s = tryStacItemToScene(item, {
        assetKeys: this.opts.assetKeys ?? DEFAULT_ASSET_KEYS,
        baseHref: self ?? `${this.root}/`,
        source: 'stac',
      });
      if (!s) continue;
      // A GRD item whose SAFE XML are assets is read as a product assembled from them, one
      // whose product is a remote SAFE zip (CDSE's PRODUCT) from inside the zip by range
      // (src/imagery/stac): the imagery layer opens either by the item's URL.
      const zip = productZipAsset(item as StacItemLike);
      if (s.productType === 'GRD' && (s.assets['safe-manifest'] || (zip && /^(https?|s3):\/\//i.test(resolveRemote(zip.href, self))))) {
        const itemUrl = self ?? `${this.root}/collections/${encodeURIComponent(item.collection ?? '')}/items/${encodeURIComponent(item.id)}`;
        if (s.assets.product) s.assets['product-asset'] = s.assets.product;
        s.assets.product = { href: itemUrl, role: 'stac-item' };
      }
      out.push(s);
    }
    return out;
  }

  private async sign(scenes: SceneRecord[]): Promise<SceneRecord[]> {
    const signHref = this.opts.signHref;
    if (!signHref) return scenes;
    return Promise.all(
      scenes.map(async (s) => {
        const assets: SceneRecord['assets'] = {};
        for (const [k, a] of Object.entries(s.assets)) {
          assets[k] = /^https?:/i.test(a.href) && a.role !== 'stac-item' ? { ...a, href: await signHref(a.href) } : a;
        }
        return { ...s, assets };
      }),
    );
  }

  private async fetchAllPages(body: Record<string, unknown>, maxPagesOverride?: number): Promise<unknown[]> {
    const maxPages = maxPagesOverride ?? this.opts.maxPages ?? 20;
    const items: unknown[] = [];
    let request: { url: string; method: string; body?: Record<string, unknown>; headers?: Record<string, string> } | null = {
      url: `${this.root}/search`,
      method: 'POST',
      body,
    };
    const seen = new Set<string>();
    for (let page = 0; request && page < maxPages; page++) {
      const key = `${request.method} ${request.url} ${JSON.stringify(request.body ?? null)}`;
      if (seen.has(key)) break; // a server that links a page to itself
      seen.add(key);
      const fc = await this.requestJson(request.url, request.method, request.body, request.headers);
      if (!Array.isArray(fc.features)) throw new CatalogError('STAC search response has no features array', 'response');
      items.push(...fc.features);
      const next = (fc.links ?? []).find((l) => l && l.rel === 'next' && typeof l.href === 'string');
      if (!next || fc.features.length === 0) break;
      const method = (next.method ?? 'GET').toUpperCase();
      if (method === 'POST') {
        const nextBody: Record<string, unknown> = next.merge ? { ...(request.body ?? {}), ...(next.body ?? {}) } : next.body ?? request.body ?? {};
        request = { url: next.href, method, body: nextBody, headers: next.headers };
      } else {
        request = { url: next.href, method: 'GET', headers: next.headers };
      }
    }
    return items;
  }

  /** One request with retries on 429, 5xx and timeouts; after the budget a CatalogError. */
  private async requestJson(
    url: string,
    method: string,
    body: Record<string, unknown> | undefined,
    extraHeaders: Record<string, string> | undefined,
  ): Promise<FeatureCollection> {
    try {
      return await withRetries(async () => {
        try {
          return await this.requestJsonOnce(url, method, body, extraHeaders);
        } catch (e) {
          if (e instanceof CatalogError && (e.reason === 'timeout' || e.reason === 'network' || (e.reason === 'http' && isRetryableStatus(e.status ?? 0)))) {
            throw new TransientError(e.message, e.reason === 'http' ? 'http' : e.reason, e.status, (e as CatalogError & { retryAfterMs?: number }).retryAfterMs);
          }
          throw e;
        }
      }, this.opts.retry);
    } catch (e) {
      if (e instanceof TransientError) throw new CatalogError(e.message, e.reason, e.status);
      throw e;
    }
  }

  private async requestJsonOnce(
    url: string,
    method: string,
    body: Record<string, unknown> | undefined,
    extraHeaders: Record<string, string> | undefined,
  ): Promise<FeatureCollection> {
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const headers: Record<string, string> = { accept: 'application/geo+json, application/json', ...this.opts.headers, ...extraHeaders };
    if (method === 'POST') headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers,
        body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const err = e as Error;
      if (err.name === 'TimeoutError' || err.name === 'AbortError') {
        throw new CatalogError(`STAC API did not answer within ${timeoutMs} ms (${method} ${url})`, 'timeout');
      }
      throw new CatalogError(`STAC API unreachable (${method} ${url}): ${err.message}`, 'network');
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      const err = new CatalogError(`STAC API answered ${res.status} to ${method} ${url}: ${text.slice(0, 200)}`, 'http', res.status);
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      if (retryAfterMs !== undefined) Object.assign(err, { retryAfterMs });
      throw err;
    }
    try {
      return (await res.json()) as FeatureCollection;
    } catch (e) {
      const err = e as Error;
      if (err.name === 'TimeoutError' || err.name === 'AbortError') {
        throw new CatalogError(`STAC API did not answer within ${timeoutMs} ms (${method} ${url})`, 'timeout');
      }
      throw new CatalogError(`STAC API response is not JSON (${method} ${url})`, 'response');
    }
  }
}
