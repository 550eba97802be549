/**
 * The dashboard's built assets (src/web → dist/web, `npm run build:web`, run by `npm install`)
 * served at `/` with no authentication: they are public code. Every call they make goes to
 * /api/v1 with the API key the user typed, which the API checks as for any client.
 *
 * Each response carries a strict Content-Security-Policy (dashboardCsp) and cache headers:
 * Vite's hashed files under assets/ never change (immutable for a year); index.html and the
 * config are revalidated on every load, so a new build is picked up at once. Text files go out
 * brotli- or gzip-compressed when the browser accepts it, from twins the build made.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import Type from 'typebox';
import { ApiError } from '../contract/errors.ts';
import type { Config } from '../config.ts';

export interface DashboardOptions {
  /** Folder of the built dashboard (index.html, assets/). */
  webDir: string;
  /** Raster tile URL template ({z}/{x}/{y}) of an online basemap; '' for the offline one only. */
  basemapUrl: string;
  /** Origins besides our own that the dashboard fetches from (a presigned object store's). */
  connectOrigins: readonly string[];
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * The policy, one reason per source:
 * - script-src 'self': the bundle only; no inline script, no eval.
 * - style-src 'self': the bundled stylesheets; Leaflet and uPlot position their elements
 *   through element.style (CSSOM), which a policy does not restrict.
 * - worker-src 'none': the page runs no worker (Leaflet draws on the page's own thread).
 * - img-src data: the quicklook overlay (fetched with the API key) is placed as a data: URL,
 *   so it needs no blob:; plus the online basemap's tile origin (Leaflet's tiles are images).
 * - connect-src: the API itself, plus the object store's origin when results are presigned
 *   elsewhere (S3). Not the basemap's tile origin: Leaflet loads tiles as images.
 * - everything else none: no frames, plugins, fonts, forms posted away, or <base> rewrites.
 */
export function dashboardCsp(opts: Pick<DashboardOptions, 'basemapUrl' | 'connectOrigins'>): string {
  const tiles = opts.basemapUrl ? [tileOrigin(opts.basemapUrl)] : [];
  const connect = ["'self'", ...opts.connectOrigins];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "worker-src 'none'",
    `img-src 'self' data: ${tiles.join(' ')}`.trim(),
    `connect-src ${[...new Set(connect)].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Where a presigned result or overlay URL points, for connect-src: nothing besides our own
 * origin in the embedded mode (signed /objects/ URLs), the S3 endpoint otherwise — the endpoint
 * itself with path-style addressing, its bucket subdomains without; AWS's when none is set.
 */
export function objectStoreOrigins(config: Pick<Config, 'storageUrl' | 's3Endpoint' | 's3ForcePathStyle'>): string[] {
  if (!config.storageUrl.startsWith('s3://')) return [];
  if (!config.s3Endpoint) return ['https://*.amazonaws.com'];
  const url = new URL(config.s3Endpoint);
  return config.s3ForcePathStyle ? [url.origin] : [`${url.protocol}//*.${url.host}`];
}

/** The origin of a tile URL template; throws on anything that is not http(s). */
export function tileOrigin(template: string): string {
  let url: URL;
  try {
    url = new URL(template.replace(/\{[a-z]+\}/gi, '0'));
  } catch {
    throw new Error(`SARWATCH_BASEMAP_URL must be an http(s) URL template with {z}/{x}/{y}, got "${template}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`SARWATCH_BASEMAP_URL must be http(s), got "${template}"`);
  return url.origin;
}

export async function dashboardRoutes(app: FastifyInstance, opts: DashboardOptions): Promise<void> {
  const csp = dashboardCsp(opts);
  const securityHeaders = {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };

  // What the static page cannot know at build time.
  app.get(
    '/web-config.json',
    {
      schema: {
        hide: true,
        response: { 200: Type.Object({ basemap_url: Type.Union([Type.String(), Type.Null()]) }) },
      },
    },
    async (_request, reply) => {
      reply.headers({ ...securityHeaders, 'Cache-Control': REVALIDATE });
      return { basemap_url: opts.basemapUrl || null };
    },
  );

  if (!fs.existsSync(path.join(opts.webDir, 'index.html'))) {
    // A checkout whose install skipped the build (e.g. `npm install --omit=dev`): say how to build.
    app.get('/', { schema: { hide: true } }, async () => {
      throw new ApiError('NOT_FOUND', 'the dashboard is not built here: run `npm run build:web` (it needs the dev dependencies), then restart');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: opts.webDir,
    prefix: '/',
    // One route per built file, found at start: no catch-all route that would take over the
    // 404s of unknown /api/v1 paths (their envelope comes from the API's own handler).
    wildcard: false,
    index: ['index.html'],
    cacheControl: false,
    // The build's .br/.gz twins (bin/build-web.js), sent by Accept-Encoding with Vary.
    preCompressed: true,
    dotfiles: 'deny',
    setHeaders(reply, filePath) {
      const rel = path.relative(opts.webDir, filePath).split(path.sep).join('/');
      reply.headers({ ...securityHeaders, 'Cache-Control': rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE });
    },
  });
}
