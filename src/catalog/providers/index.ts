/**
 * Scene providers (CATALOG_PROVIDER): each a small adapter that gives the SceneCatalog to
 * search and the RemoteAccess to read the scenes' assets with. docs/catalogs.md documents
 * the configuration of each.
 *
 *   local               the archive folder (runtime indexes it); remote hrefs of local STAC
 *                       items are read as by `stac`
 *   stac                any STAC API at CATALOG_URL; https assets as they are, s3:// assets
 *                       through the AWS SDK with the usual AWS_* credentials
 *   planetary-computer  Planetary Computer: SAS token per collection appended to asset hrefs
 *   cdse                Copernicus Data Space: s3://eodata/… with the user's S3 keys, or the
 *                       https alternates with an OIDC bearer token
 */
import http from 'node:http';
import https from 'node:https';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../../config.ts';
import { RemoteAccess, type RemoteAccessOptions } from '../../imagery/remote/access.ts';
import type { RetryPolicy } from '../../imagery/remote/retry.ts';
import type { SceneCatalog } from '../port.ts';
import { StacSceneCatalog, type StacCatalogOptions } from '../stac/catalog.ts';
import { OidcTokenSource } from './oidcToken.ts';
import { PlanetaryComputerSigner } from './planetaryComputerSas.ts';

export const PLANETARY_COMPUTER_STAC_URL = 'https://planetarycomputer.microsoft.com/api/stac/v1';
export const CDSE_STAC_URL = 'https://stac.dataspace.copernicus.eu/v1';

export interface CatalogProvider {
  name: Config['catalogProvider'];
  /** null for `local`: the runtime indexes the archive folder into its store. */
  catalog: SceneCatalog | null;
  access: RemoteAccess;
  /** Planetary Computer's signer (tests and the CLI look at it). */
  signer?: PlanetaryComputerSigner;
  oidc?: OidcTokenSource;
}

export interface ProviderOverrides {
  retry?: RetryPolicy;
  fetch?: typeof fetch;
  s3?: S3Client;
}

function retryOf(config: Config, o: ProviderOverrides): RetryPolicy {
  return { attempts: config.remoteAttempts, ...o.retry };
}

function cacheOf(config: Config): RemoteAccessOptions['cache'] {
  return { dir: config.byteCacheDir, maxBytes: config.byteCacheMaxBytes };
}

/** An S3 client for `s3://` hrefs: endpoint, keys and a cap on concurrent connections. */
export async function s3Client(opts: { endpoint?: string; accessKey?: string; secretKey?: string; forcePathStyle?: boolean; maxConnections?: number; region?: string }): Promise<S3Client> {
  // The AWS SDK is loaded at the first s3:// read, never by a process that makes none.
  const { S3Client } = await import('@aws-sdk/client-s3');
  const max = opts.maxConnections ?? 50;
  return new S3Client({
    region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: opts.forcePathStyle ?? true } : {}),
    ...(opts.accessKey && opts.secretKey ? { credentials: { accessKeyId: opts.accessKey, secretAccessKey: opts.secretKey } } : {}),
    // Keep-alive sockets, at most `max` at a time (CDSE allows 4 per user).
    requestHandler: { httpAgent: new http.Agent({ keepAlive: true, maxSockets: max }), httpsAgent: new https.Agent({ keepAlive: true, maxSockets: max }) },
  });
}

function stacOptions(config: Config, url: string, o: ProviderOverrides): StacCatalogOptions {
  return { url, retry: retryOf(config, o), timeoutMs: config.remoteTimeoutMs, ...(o.fetch ? { fetch: o.fetch } : {}) };
}

export function openCatalogProvider(config: Config, o: ProviderOverrides = {}): CatalogProvider {
  const retry = retryOf(config, o);
  const common: RemoteAccessOptions = { cache: cacheOf(config), retry, timeoutMs: config.remoteTimeoutMs, ...(o.fetch ? { fetch: o.fetch } : {}) };
  const genericS3 = () => o.s3 ?? (() => s3Client({ endpoint: config.catalogS3Endpoint || undefined, forcePathStyle: config.catalogS3ForcePathStyle }));

  switch (config.catalogProvider) {
    case 'local':
      return { name: 'local', catalog: null, access: new RemoteAccess({ ...common, s3: genericS3() }) };

    case 'stac': {
      if (!config.catalogUrl) throw new Error('CATALOG_PROVIDER=stac needs CATALOG_URL (the STAC API root)');
      return { name: 'stac', catalog: new StacSceneCatalog(stacOptions(config, config.catalogUrl, o)), access: new RemoteAccess({ ...common, s3: genericS3() }) };
    }

    case 'planetary-computer': {
      const url = config.catalogUrl || PLANETARY_COMPUTER_STAC_URL;
      const signer = new PlanetaryComputerSigner({
        tokenUrl: config.pcSasTokenUrl,
        subscriptionKey: config.pcSubscriptionKey || undefined,
        unsignedPrefixes: [url.replace(/\/+$/, '')],
        retry,
        timeoutMs: config.remoteTimeoutMs,
        ...(o.fetch ? { fetch: o.fetch } : {}),
      });
      const catalog = new StacSceneCatalog({
        ...stacOptions(config, url, o),
        ...(config.pcSubscriptionKey ? { headers: { 'Ocp-Apim-Subscription-Key': config.pcSubscriptionKey } } : {}),
        // Asset hrefs stay unsigned in scene records; they are signed when read, with a token
        // that is valid then. The signer learns which storage container is which collection.
        onItem: (item) => {
          if (!item.collection) return;
          for (const a of Object.values(item.assets ?? {})) if (typeof a?.href === 'string') signer.remember(a.href, item.collection);
        },
      });
      return { name: 'planetary-computer', catalog, signer, access: new RemoteAccess({ ...common, auth: { sign: (h, c) => signer.sign(h, c) }, s3: genericS3() }) };
    }

    case 'cdse': {
      const url = (config.catalogUrl || CDSE_STAC_URL).replace(/\/+$/, '');
      const c = config.cdse;
      const haveS3Keys = Boolean(c.s3AccessKey && c.s3SecretKey);
      const haveOidc = Boolean(c.clientSecret || c.refreshToken || (c.username && c.password));
      const oidc = haveOidc
        ? new OidcTokenSource({
            tokenUrl: c.tokenUrl,
            clientId: c.clientId,
            ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
            ...(c.refreshToken ? { refreshToken: c.refreshToken } : {}),
            ...(c.username ? { username: c.username, password: c.password } : {}),
            retry,
            timeoutMs: config.remoteTimeoutMs,
            ...(o.fetch ? { fetch: o.fetch } : {}),
          })
        : undefined;
      const catalog = new StacSceneCatalog({ ...stacOptions(config, url, o), collections: { GRD: ['sentinel-1-grd'], RTC: [] } });
      const s3 = o.s3 ?? (() => s3Client({ endpoint: c.s3Endpoint, accessKey: c.s3AccessKey, secretKey: c.s3SecretKey, maxConnections: c.s3MaxConnections, forcePathStyle: true }));
      const access = new RemoteAccess({
        ...common,
        s3,
        // S3 keys: read s3://eodata directly; otherwise the https alternate with the bearer token.
        assetHref: (asset) => (haveS3Keys || !asset.alternate?.https?.href ? asset.href : asset.alternate.https.href),
        ...(oidc ? { auth: { headers: async (href: string) => (href.startsWith(url) ? {} : oidc.headers()) } } : {}),
      });
      return { name: 'cdse', catalog, access, ...(oidc ? { oidc } : {}) };
    }
  }
}
