/**
 * A local stand-in for the public Sentinel-1 archives (no internet here): one node:http
 * server on 127.0.0.1 that answers as Planetary Computer (STAC API, SAS token endpoint,
 * blob storage with range requests that require the token), as Copernicus Data Space (STAC
 * API, OIDC token endpoint, https assets behind a bearer token) and as any STAC API. It
 * serves real files (the North-Sea SAFE's) as assets, counts what it sends, and can inject
 * 429 / 503 answers.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { NORTH_SEA_SAFE } from './fixtures.ts';
import { STAC_EXAMPLES } from '../catalog/fixtures.ts';

export interface StandInRequest {
  method: string;
  path: string;
  query: string;
  range?: string;
  authorization?: string;
  subscriptionKey?: string;
  status: number;
  bytes: number;
}

export interface StandIn {
  url: string;
  requests: StandInRequest[];
  /** Items served by the STAC API, by collection. */
  items: Map<string, Record<string, unknown>[]>;
  /** Statuses to answer instead of serving, consumed one per matching request. */
  inject(pathPattern: RegExp, statuses: number[], headers?: Record<string, string>): void;
  /** Asset bytes served so far (range bodies). */
  assetBytes(): number;
  /** SAS tokens issued; the current one per collection. */
  tokensIssued: number;
  /** OIDC tokens issued. */
  oidcIssued: number;
  /** Seconds a SAS token / OIDC token lives. */
  tokenLifetimeS: number;
  /** Serve files under /blob/ (PC) or /odata/ (CDSE): url path → local file. */
  files: Map<string, string>;
  close(): Promise<void>;
}

interface Injection {
  pattern: RegExp;
  statuses: number[];
  headers: Record<string, string>;
}

function bboxOverlap(a: number[], b: number[]): boolean {
  return a[0]! <= b[2]! && b[0]! <= a[2]! && a[1]! <= b[3]! && b[1]! <= a[3]!;
}

function geomBbox(g: { type: string; coordinates: unknown }): number[] {
  const pts = (JSON.stringify(g.coordinates).match(/-?\d+(\.\d+)?(e-?\d+)?,-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).map((s) => s.split(',').map(Number));
  const xs = pts.map((p) => p[0]!);
  const ys = pts.map((p) => p[1]!);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export async function startStandIn(): Promise<StandIn> {
  const injections: Injection[] = [];
  const sas = new Map<string, { token: string; expiry: number }>();
  const oidc = new Map<string, number>(); // access token → expiry ms
  let counter = 0;
  const state: StandIn = {
    url: '',
    requests: [],
    items: new Map(),
    inject(pattern, statuses, headers = {}) {
      injections.push({ pattern, statuses: [...statuses], headers });
    },
    assetBytes() {
      return state.requests.filter((r) => /^\/(blob|odata)\//.test(r.path)).reduce((s, r) => s + r.bytes, 0);
    },
    tokensIssued: 0,
    oidcIssued: 0,
    tokenLifetimeS: 3600,
    files: new Map(),
    close: async () => {},
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://stand-in');
      const record: StandInRequest = {
        method: req.method!,
        path: decodeURIComponent(url.pathname),
        query: url.search,
        status: 0,
        bytes: 0,
        ...(req.headers.range ? { range: req.headers.range } : {}),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(req.headers['ocp-apim-subscription-key'] ? { subscriptionKey: String(req.headers['ocp-apim-subscription-key']) } : {}),
      };
      state.requests.push(record);
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        record.status = status;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(payload));
      };
      const injection = injections.find((i) => i.pattern.test(record.path) && i.statuses.length > 0);
      if (injection) return json(injection.statuses.shift()!, { error: 'injected by the stand-in' }, injection.headers);
      const body = chunks.length ? Buffer.concat(chunks).toString('utf8') : '';
      const p = record.path;

      // ---- token endpoints
      let m = /^\/api\/sas\/v1\/token\/([^/]+)$/.exec(p);
      if (m) {
        const collection = m[1]!;
        const token = `st=2026-01-01&se=x&sp=rl&sv=2021-06-08&sr=c&skoid=standin&sig=${collection}-${++counter}`;
        const expiry = Date.now() + state.tokenLifetimeS * 1000;
        sas.set(token, { token, expiry });
        state.tokensIssued++;
        return json(200, { token, 'msft:expiry': new Date(expiry).toISOString().replace(/\.\d+Z$/, 'Z') });
      }
      if (p === '/auth/realms/CDSE/protocol/openid-connect/token' && req.method === 'POST') {
        const form = new URLSearchParams(body);
        const grant = form.get('grant_type');
        const ok =
          (grant === 'client_credentials' && form.get('client_id') === 'sarwatch' && form.get('client_secret') === 's3cret') ||
          (grant === 'refresh_token' && /^refresh-/.test(form.get('refresh_token') ?? '')) ||
          (grant === 'password' && form.get('username') === 'user@example.org');
        if (!ok) return json(401, { error: 'invalid_grant' });
        const access = `access-${++counter}`;
        oidc.set(access, Date.now() + state.tokenLifetimeS * 1000);
        state.oidcIssued++;
        return json(200, { access_token: access, expires_in: state.tokenLifetimeS, refresh_token: `refresh-${counter}`, token_type: 'Bearer' });
      }

      // ---- STAC APIs: /api/stac/v1 (PC), /cdse/stac (CDSE), /stac (any)
      m = /^(\/api\/stac\/v1|\/cdse\/stac|\/stac)(\/.*)?$/.exec(p);
      if (m) {
        const root = `${state.url}${m[1]}`;
        const rest = m[2] ?? '/';
        if (rest === '/search' && req.method === 'POST') {
          const q = body ? (JSON.parse(body) as Record<string, unknown>) : {};
          const cols = (q.collections as string[] | undefined) ?? [...state.items.keys()];
          const ids = q.ids as string[] | undefined;
          const [from, to] = typeof q.datetime === 'string' ? q.datetime.split('/') : ['..', '..'];
          const features = cols.flatMap((c) => state.items.get(c) ?? []).filter((it) => {
            const props = it.properties as Record<string, unknown>;
            const t = Date.parse(String(props.start_datetime ?? props.datetime));
            if (ids && !ids.includes(String(it.id))) return false;
            if (from && from !== '..' && t < Date.parse(from)) return false;
            if (to && to !== '..' && t > Date.parse(to)) return false;
            if (q.intersects && !bboxOverlap(geomBbox(it.geometry as never), geomBbox(q.intersects as never))) return false;
            return true;
          });
          return json(200, { type: 'FeatureCollection', features, links: [{ rel: 'root', href: root }] });
        }
        const im = /^\/collections\/([^/]+)\/items\/([^/]+)$/.exec(rest);
        if (im && req.method === 'GET') {
          const item = (state.items.get(im[1]!) ?? []).find((it) => it.id === im[2]);
          return item ? json(200, item) : json(404, { code: 'NotFoundError' });
        }
        return json(404, { code: 'NotFoundError' });
      }

      // ---- assets
      const file = state.files.get(p);
      if (!file) return json(404, { error: 'no such asset' });
      if (p.startsWith('/blob/')) {
        const sig = url.searchParams.get('sig');
        const t = [...sas.values()].find((s) => s.token.endsWith(`sig=${sig}`));
        const collection = p.split('/')[2] === 's1-grd' ? 'sentinel-1-grd' : 'sentinel-1-rtc';
        if (!t || t.expiry < Date.now() || !String(sig).startsWith(collection)) {
          record.status = 403;
          res.writeHead(403).end('AuthenticationFailed');
          return;
        }
      }
      if (p.startsWith('/odata/')) {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const exp = bearer ? oidc.get(bearer) : undefined;
        if (!exp || exp < Date.now()) {
          record.status = 401;
          res.writeHead(401).end('token required');
          return;
        }
      }
      const size = statSync(file).size;
      const r = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (!r) {
        // Whole file (only the stand-in's XML is ever asked for this way).
        record.status = 200;
        record.bytes = size;
        res.writeHead(200, { 'content-length': size, 'accept-ranges': 'bytes' });
        res.end(readFileSync(file));
        return;
      }
      const start = Number(r[1]);
      const end = Math.min(size - 1, r[2] ? Number(r[2]) : size - 1);
      record.status = 206;
      record.bytes = end - start + 1;
      res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': end - start + 1, 'accept-ranges': 'bytes' });
      createReadStream(file, { start, end }).pipe(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return state;
}

export const NORTH_SEA_ID = 'S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A';

/** The North-Sea SAFE's files as blob paths, laid out as Planetary Computer lays out its GRD container. */
export function northSeaBlobFiles(prefix = '/blob/s1-grd/GRD/2022/6/12/IW/DV/S1A_IW_GRDH_1SDV_20220612T173329_20220612T173354_043633_05359A_EA25'): Record<string, { path: string; file: string }> {
  const ann = (pol: string, n: string) => `s1a-iw-grd-${pol}-20220612t173329-20220612t173354-043633-05359a-${n}.xml`;
  const safe = NORTH_SEA_SAFE;
  const out: Record<string, { path: string; file: string }> = {
    'safe-manifest': { path: `${prefix}/manifest.safe`, file: path.join(safe, 'manifest.safe') },
  };
  for (const [pol, n] of [['vv', '001'], ['vh', '002']] as const) {
    out[`schema-product-${pol}`] = { path: `${prefix}/annotation/${ann(pol, n)}`, file: path.join(safe, 'annotation', ann(pol, n)) };
    out[`schema-calibration-${pol}`] = { path: `${prefix}/annotation/calibration/calibration-${ann(pol, n)}`, file: path.join(safe, 'annotation/calibration', `calibration-${ann(pol, n)}`) };
    out[`schema-noise-${pol}`] = { path: `${prefix}/annotation/calibration/noise-${ann(pol, n)}`, file: path.join(safe, 'annotation/calibration', `noise-${ann(pol, n)}`) };
    // Planetary Computer renames measurements: measurement/iw-vv.tiff.
    out[pol] = { path: `${prefix}/measurement/iw-${pol}.tiff`, file: path.join(safe, 'measurement', `s1a-iw-grd-${pol}-20220612t173329-20220612t173354-043633-05359a-002.tiff`) };
  }
  return out;
}

/**
 * A Planetary-Computer-shaped `sentinel-1-grd` item for the North-Sea crop: the real example
 * item's shape (stactools, samples/stac-examples) with the North-Sea product's
 * properties, footprint and assets on the stand-in.
 */
export function northSeaItem(standIn: StandIn, opts: { collection?: string; apiRoot?: string; assetBase?: string; assetFiles?: Record<string, { path: string; file: string }> } = {}): Record<string, unknown> {
  const example = JSON.parse(
    readFileSync(path.join(STAC_EXAMPLES, 'grd/S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13/S1A_IW_GRDH_1SDV_20210809T173953_20210809T174018_039156_049F13.json'), 'utf8'),
  ) as Record<string, any>;
  const collection = opts.collection ?? 'sentinel-1-grd';
  const apiRoot = opts.apiRoot ?? `${standIn.url}/api/stac/v1`;
  const files = opts.assetFiles ?? northSeaBlobFiles();
  const item = structuredClone(example);
  item.id = NORTH_SEA_ID;
  item.collection = collection;
  // Manifest footprint (lat,lon pairs there), as lon/lat.
  item.geometry = { type: 'Polygon', coordinates: [[[1.555011, 52.442204], [5.384152, 52.853951], [5.755852, 51.358814], [2.051018, 50.949482], [1.555011, 52.442204]]] };
  item.bbox = [1.555011, 50.949482, 5.755852, 52.853951];
  Object.assign(item.properties, {
    datetime: '2022-06-12T17:33:41.5Z',
    start_datetime: '2022-06-12T17:33:29.000000Z',
    end_datetime: '2022-06-12T17:33:54.000000Z',
    'sat:orbit_state': 'ascending',
    'sat:absolute_orbit': 43633,
    'sat:relative_orbit': 161,
    's1:product_identifier': `${NORTH_SEA_ID}_EA25`,
    's1:datatake_id': '218522',
    's1:product_timeliness': 'Fast-24h',
  });
  const assets: Record<string, unknown> = {};
  for (const [key, a] of Object.entries(example.assets as Record<string, Record<string, unknown>>)) {
    const f = files[key];
    if (!f) continue;
    assets[key] = { ...a, href: `${opts.assetBase ?? standIn.url}${f.path}` };
    standIn.files.set(f.path, f.file);
  }
  item.assets = assets;
  item.links = [
    { rel: 'collection', href: `${apiRoot}/collections/${collection}`, type: 'application/json' },
    { rel: 'parent', href: `${apiRoot}/collections/${collection}`, type: 'application/json' },
    { rel: 'root', href: `${apiRoot}/`, type: 'application/json' },
    { rel: 'self', href: `${apiRoot}/collections/${collection}/items/${NORTH_SEA_ID}`, type: 'application/geo+json' },
  ];
  return item;
}
