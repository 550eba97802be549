/**
 * The STAC adapter against a local node:http server that serves the real example items
 * (stactools-packages/sentinel1 examples) the way Planetary Computer's STAC API does:
 * POST /search with collections, intersects, datetime, ids, the `query` extension, and
 * `next` links. The public API is out of this network's reach; this is its stand-in.
 */
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogError, StacSceneCatalog, stacItemToScene, type StacItem } from '../../src/catalog/index.ts';
import { bboxOf } from '../../src/geo/index.ts';
import type { AoiGeometry } from '../../src/geo/types.ts';
import { box, STAC_EXAMPLES } from './fixtures.ts';

async function loadItems(dir: string): Promise<StacItem[]> {
  const out: StacItem[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await loadItems(full)));
    else if (e.name.endsWith('.json')) {
      const v = JSON.parse(await readFile(full, 'utf8'));
      if (v.type === 'Feature') out.push(v);
    }
  }
  return out;
}

const PC_NAMES: Record<string, string> = { 'sentinel1-grd': 'sentinel-1-grd', 'sentinel1-rtc-aws': 'sentinel-1-rtc' };

interface StandIn {
  url: string;
  requests: { method: string; url: string; body: Record<string, unknown> | null }[];
  mode: { paging: 'post' | 'get'; failWith?: number; delayMs?: number };
  close(): Promise<void>;
}

function overlaps(a: AoiGeometry, b: AoiGeometry): boolean {
  const [ax0, ay0, ax1, ay1] = bboxOf(a);
  const [bx0, by0, bx1, by1] = bboxOf(b);
  return ax0 <= bx1 && bx0 <= ax1 && ay0 <= by1 && by0 <= ay1;
}

async function startStandIn(items: StacItem[]): Promise<StandIn> {
  const state: StandIn = { url: '', requests: [], mode: { paging: 'post' }, close: async () => {} };
  const search = (body: Record<string, unknown>): StacItem[] => {
    const cols = body.collections as string[] | undefined;
    const ids = body.ids as string[] | undefined;
    const [from, to] = typeof body.datetime === 'string' ? body.datetime.split('/') : ['..', '..'];
    const orbit = (body.query as Record<string, { eq?: string }> | undefined)?.['sat:orbit_state']?.eq;
    return items.filter((it) => {
      const t = Date.parse(String(it.properties.start_datetime ?? it.properties.datetime));
      if (cols && !cols.includes(it.collection!)) return false;
      if (ids && !ids.includes(it.id)) return false;
      if (from && from !== '..' && t < Date.parse(from)) return false;
      if (to && to !== '..' && t > Date.parse(to)) return false;
      if (orbit && it.properties['sat:orbit_state'] !== orbit) return false;
      if (body.intersects && !overlaps(it.geometry!, body.intersects as AoiGeometry)) return false;
      return true;
    });
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, state.url);
      let body: Record<string, unknown> | null = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      state.requests.push({ method: req.method!, url: req.url!, body });
      const reply = (status: number, payload: unknown) => {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/geo+json' });
          res.end(JSON.stringify(payload));
        };
        if (state.mode.delayMs) setTimeout(send, state.mode.delayMs);
        else send();
      };
      if (state.mode.failWith) return reply(state.mode.failWith, { code: 'Boom', description: 'stand-in failure' });
      if (url.pathname !== '/api/stac/v1/search') return reply(404, { code: 'NotFound' });
      if (req.method === 'GET') body = JSON.parse(Buffer.from(url.searchParams.get('q')!, 'base64url').toString('utf8'));
      const all = search(body ?? {});
      const limit = Number(body?.limit ?? 10);
      const offset = Number(body?.token ?? 0);
      const page = all.slice(offset, offset + limit);
      const links: Record<string, unknown>[] = [];
      if (offset + limit < all.length) {
        const nextToken = String(offset + limit);
        if (state.mode.paging === 'post') {
          links.push({ rel: 'next', href: `${state.url}/api/stac/v1/search`, method: 'POST', body: { token: nextToken }, merge: true });
        } else {
          const q = Buffer.from(JSON.stringify({ ...body, token: nextToken })).toString('base64url');
          links.push({ rel: 'next', href: `${state.url}/api/stac/v1/search?q=${q}`, method: 'GET' });
        }
      }
      reply(200, { type: 'FeatureCollection', features: page, links, numberReturned: page.length });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

describe('StacSceneCatalog against a local stand-in for the public STAC API (Planetary Computer is out of this network’s reach)', () => {
  let standIn: StandIn;
  let items: StacItem[];
  const IW_ID = 'S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13';
  /** Inside the IW GRD example's footprint (France, 2021-08-09). */
  const FRANCE = box(3.0, 45.3, 3.4, 45.6);

  beforeAll(async () => {
    const real = await loadItems(STAC_EXAMPLES);
    expect(real).toHaveLength(4);
    items = real.map((it) => ({ ...it, collection: PC_NAMES[it.collection!] ?? it.collection }));
    // The Fast-24h version of the NRT IW product: same pass, its own product id (CDSE style).
    const nrt = items.find((it) => it.id === IW_ID)!;
    items.push({
      ...structuredClone(nrt),
      id: `${IW_ID}_9C1E`,
      properties: {
        ...nrt.properties,
        's1:product_timeliness': 'Fast-24h',
        start_datetime: '2021-08-09T17:39:53.312000Z',
        end_datetime: '2021-08-09T17:40:18.311000Z',
      },
    });
    standIn = await startStandIn(items);
  });
  afterAll(async () => {
    await standIn?.close();
  });
  beforeEach(() => {
    standIn.requests.length = 0;
    standIn.mode = { paging: 'post' };
  });

  const catalog = (opts: Partial<ConstructorParameters<typeof StacSceneCatalog>[0]> = {}) =>
    new StacSceneCatalog({ url: `${standIn.url}/api/stac/v1`, pageSize: 1, ...opts });

  it('POST /search carries intersects, datetime, the default collections and the sat:orbit_state query', async () => {
    const start = new Date('2021-08-01T00:00:00Z');
    const end = new Date('2021-08-31T23:59:59Z');
    await catalog().search({ intersects: FRANCE, start, end, orbitDirection: 'ascending', productTypes: ['GRD'] });
    const first = standIn.requests[0]!;
    expect(first.method).toBe('POST');
    expect(first.url).toBe('/api/stac/v1/search');
    expect(first.body).toEqual({
      collections: ['sentinel-1-grd'],
      limit: 1,
      intersects: FRANCE,
      datetime: '2021-08-01T00:00:00.000Z/2021-08-31T23:59:59.000Z',
      query: { 'sat:orbit_state': { eq: 'ascending' } },
    });
  });

  it('follows POST next links (merge) across pages and de-duplicates the NRT/Fast versions of one pass (Fast kept)', async () => {
    const found = await catalog().search({ intersects: FRANCE, productTypes: ['GRD'] });
    expect(standIn.requests).toHaveLength(2);
    expect(standIn.requests[1]!.body).toMatchObject({ token: '1', collections: ['sentinel-1-grd'], intersects: FRANCE });
    expect(found.map((s) => [s.sceneId, s.timeliness])).toEqual([[`${IW_ID}_9C1E`, 'Fast']]);
  });

  it('follows GET next links too, and stops at the page cap', async () => {
    standIn.mode.paging = 'get';
    const all = await catalog().search({});
    expect(all.map((s) => s.sceneId).sort()).toEqual(
      ['S1A_20200103_17RMJ_ASC', 'S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549', 'S1B_20161121_12SYJ_ASC', `${IW_ID}_9C1E`].sort(),
    );
    expect(standIn.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'GET', 'GET', 'GET']);
    standIn.requests.length = 0;
    const capped = await catalog({ maxPages: 2 }).search({});
    expect(standIn.requests).toHaveLength(2);
    expect(capped.length).toBeLessThanOrEqual(2);
  });

  it('maps items to scene records: orbits, direction, polarisations, per-polarisation assets, timeliness', async () => {
    const [grd] = await catalog({ pageSize: 10 }).search({ productTypes: ['GRD'], orbitDirection: 'descending' });
    expect(grd).toMatchObject({
      sceneId: 'S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549',
      productType: 'GRD',
      platform: 'S1A',
      relativeOrbit: 20,
      absoluteOrbit: 46117,
      orbitDirection: 'descending',
      polarisations: ['HH', 'HV'],
      timeliness: 'Fast',
      source: 'stac',
    });
    expect(grd!.assets.hh).toMatchObject({ role: 'data', pol: 'HH' });
    expect(grd!.assets.hh!.href.startsWith(standIn.url)).toBe(true); // relative href resolved against the API
    const rtc = await catalog({ pageSize: 10 }).search({ productTypes: ['RTC'] });
    expect(rtc.map((s) => [s.sceneId, s.relativeOrbit, s.orbitDirection, Object.keys(s.assets).sort().join(',')])).toEqual([
      ['S1B_20161121_12SYJ_ASC', 49, 'ascending', 'incidence,vh,vv'],
      ['S1A_20200103_17RMJ_ASC', 121, 'ascending', 'incidence,vh,vv'],
    ]);
    expect(rtc[0]!.assets.vv!.href).toMatch(/Gamma0_VV\.tif$/);
  });

  it('configurable collection ids and asset keys', async () => {
    await catalog({ collections: { GRD: ['my-grd'], RTC: ['my-rtc'] } }).search({});
    expect(standIn.requests[0]!.body!.collections).toEqual(['my-grd', 'my-rtc']);
    const rtcItem = items.find((i) => i.id === 'S1A_20200103_17RMJ_ASC')!;
    const s = stacItemToScene(rtcItem, { assetKeys: { RTC: { VV: ['incidence'] } } });
    expect(s.assets.vv!.href).toMatch(/local_incident_angle\.tif$/);
  });

  it('get(): by item id, and a full product name resolves to the item without its unique id', async () => {
    const c = catalog();
    expect((await c.get('S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549'))!.relativeOrbit).toBe(20);
    const byFullName = await c.get('S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549_BB15.SAFE');
    expect(byFullName!.sceneId).toBe('S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549');
    expect(standIn.requests.at(-1)!.body!.ids).toEqual([
      'S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549_BB15',
      'S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549',
    ]);
    expect(await c.get('S1A_IW_GRDH_1SDV_20990101T000000_20990101T000025_099999_0ABCDE')).toBeNull();
  });

  it('the optional signing hook signs every http asset href', async () => {
    const c = catalog({ pageSize: 10, signHref: async (href) => `${href}?sig=test` });
    const found = await c.search({ productTypes: ['RTC'] });
    for (const s of found) for (const a of Object.values(s.assets)) expect(a.href).toMatch(/\?sig=test$/);
    expect((await c.get('S1A_EW_GRDM_1SDH_20221130T014342_20221130T014446_046117_058549'))!.assets.hh!.href).toMatch(/\?sig=test$/);
  });

  it('failures are CatalogError values after the retry budget: HTTP error status, timeout, unreachable', async () => {
    const waits: number[] = [];
    const retry = { attempts: 3, baseDelayMs: 100, random: () => 0.5, sleep: async (ms: number) => void waits.push(ms) };
    standIn.mode.failWith = 503;
    const before = standIn.requests.length;
    const http503 = await catalog({ retry }).search({}).catch((e: unknown) => e);
    expect(http503).toBeInstanceOf(CatalogError);
    expect(http503).toMatchObject({ code: 'CATALOG_UNAVAILABLE', reason: 'http', status: 503 });
    expect(standIn.requests.length - before).toBe(3);
    // Exponential backoff with (injected) jitter: half of 100 ms, then half of 200 ms.
    expect(waits).toEqual([50, 100]);
    standIn.mode = { paging: 'post', delayMs: 400 };
    const slow = await catalog({ timeoutMs: 100, retry }).search({}).catch((e: unknown) => e);
    expect(slow).toMatchObject({ code: 'CATALOG_UNAVAILABLE', reason: 'timeout' });
    const down = await new StacSceneCatalog({ url: 'http://127.0.0.1:9/api', retry }).search({}).catch((e: unknown) => e);
    expect(down).toMatchObject({ code: 'CATALOG_UNAVAILABLE', reason: 'network' });
  });

  it('a 404 is not retried; a 429 then success is retried and answers', async () => {
    const retry = { attempts: 4, sleep: async () => {} };
    standIn.mode = { paging: 'post', failWith: 404 };
    let before = standIn.requests.length;
    expect(await catalog({ retry }).search({}).catch((e: unknown) => e)).toMatchObject({ reason: 'http', status: 404 });
    expect(standIn.requests.length - before).toBe(1);
    standIn.mode = { paging: 'post' };
    before = standIn.requests.length;
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => (++calls === 1 ? new Response('slow down', { status: 429, headers: { 'retry-after': '0' } }) : fetch(input, init));
    const found = await catalog({ retry, fetch: flaky, pageSize: 10 }).search({ productTypes: ['GRD'] });
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(found.length).toBeGreaterThan(0);
  });
});
