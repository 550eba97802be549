/**
 * Planetary Computer's SAS tokens: asset hrefs (Azure blob storage) are readable with a
 * token per collection from `{PC_SAS_TOKEN_URL}/{collection}`, which answers
 * `{ "token": "st=…&se=…&sig=…", "msft:expiry": "2026-…Z" }`. Tokens are cached per
 * collection, shared by concurrent callers, and renewed a margin before they expire, so a
 * long job's later range reads carry a valid one. An optional subscription key raises the
 * rate limits (header `Ocp-Apim-Subscription-Key`).
 */
import { CatalogError } from '../port.ts';
import { fetchTransient, TransientError, withRetries, type RetryPolicy } from '../../imagery/remote/retry.ts';

export const DEFAULT_PC_SAS_TOKEN_URL = 'https://planetarycomputer.microsoft.com/api/sas/v1/token';

export interface SasSignerOptions {
  tokenUrl?: string;
  subscriptionKey?: string;
  /** Renew this long before `msft:expiry`. Default 5 min. */
  renewBeforeMs?: number;
  /** Collection of hrefs whose collection is not known. Default sentinel-1-grd. */
  defaultCollection?: string;
  /** Hrefs starting with one of these are not assets (the STAC API itself): never signed. */
  unsignedPrefixes?: string[];
  retry?: RetryPolicy;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface Token {
  token: string;
  expiresAt: number;
}

export class PlanetaryComputerSigner {
  private readonly tokens = new Map<string, Promise<Token>>();
  /** Storage prefix (account/container) → collection, learned from the items searched. */
  private readonly prefixes = new Map<string, string>();
  private readonly tokenUrl: string;
  private readonly now: () => number;
  /** Token requests made (tests, logs). */
  requests = 0;

  constructor(private readonly opts: SasSignerOptions = {}) {
    this.tokenUrl = (opts.tokenUrl ?? DEFAULT_PC_SAS_TOKEN_URL).replace(/\/+$/, '');
    this.now = opts.now ?? Date.now;
  }

  private prefixOf(href: string): string | null {
    const m = /^https?:\/\/[^/]+\/[^/?#]+/i.exec(href);
    return m ? m[0] : null;
  }

  /** Remember that assets under this href's storage container belong to `collection`. */
  remember(href: string, collection: string): void {
    const p = this.prefixOf(href);
    if (p) this.prefixes.set(p, collection);
  }

  /** A valid token for the collection: cached, renewed `renewBeforeMs` before expiry. */
  token(collection: string): Promise<string> {
    const cached = this.tokens.get(collection);
    const margin = this.opts.renewBeforeMs ?? 5 * 60_000;
    const fresh = cached?.then((t) => (t.expiresAt - margin > this.now() ? t.token : null)).catch(() => null);
    return (async () => {
      const ok = fresh ? await fresh : null;
      if (ok) return ok;
      // Concurrent callers that find the same stale entry share one renewal.
      if (this.tokens.get(collection) === cached) {
        const p = this.fetchToken(collection);
        this.tokens.set(collection, p);
        p.catch(() => {
          if (this.tokens.get(collection) === p) this.tokens.delete(collection);
        });
      }
      return (await this.tokens.get(collection)!).token;
    })();
  }

  private async fetchToken(collection: string): Promise<Token> {
    const url = `${this.tokenUrl}/${encodeURIComponent(collection)}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.opts.subscriptionKey) headers['Ocp-Apim-Subscription-Key'] = this.opts.subscriptionKey;
    try {
      return await withRetries(async () => {
        this.requests++;
        const res = await fetchTransient(this.opts.fetch ?? fetch, url, { headers }, this.opts.timeoutMs ?? 30_000);
        if (!res.ok) throw new CatalogError(`SAS token endpoint answered ${res.status} for ${collection}`, 'http', res.status);
        let body: { token?: unknown; 'msft:expiry'?: unknown };
        try {
          body = (await res.json()) as typeof body;
        } catch (e) {
          throw new TransientError(`SAS token answer for ${collection} is not JSON: ${(e as Error).message}`, 'network');
        }
        const expiresAt = Date.parse(String(body['msft:expiry']));
        if (typeof body.token !== 'string' || !Number.isFinite(expiresAt)) {
          throw new CatalogError(`SAS token answer for ${collection} lacks token / msft:expiry`, 'response');
        }
        return { token: body.token.replace(/^\?/, ''), expiresAt };
      }, this.opts.retry);
    } catch (e) {
      if (e instanceof TransientError) throw new CatalogError(`SAS token endpoint unavailable: ${e.message}`, e.reason === 'http' ? 'http' : e.reason, e.status);
      throw e;
    }
  }

  /** The href with the collection's token appended (hrefs of the STAC API and already signed ones unchanged). */
  async sign(href: string, collection?: string): Promise<string> {
    if (!/^https?:/i.test(href) || /[?&]sig=/.test(href)) return href;
    if ((this.opts.unsignedPrefixes ?? []).some((p) => p && href.startsWith(p)) || href.startsWith(this.tokenUrl)) return href;
    const prefix = this.prefixOf(href);
    const c = collection ?? (prefix ? this.prefixes.get(prefix) : undefined) ?? this.opts.defaultCollection ?? 'sentinel-1-grd';
    const token = await this.token(c);
    return `${href}${href.includes('?') ? '&' : '?'}${token}`;
  }
}
