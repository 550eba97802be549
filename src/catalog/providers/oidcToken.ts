/**
 * Bearer tokens from an OpenID Connect token endpoint (Copernicus Data Space's Keycloak):
 * client credentials, a refresh token, or username + password (CDSE's `cdse-public`
 * client). The access token is cached, shared by concurrent callers and renewed before it
 * expires — with the refresh token the endpoint handed out, when it did.
 */
import { CatalogError } from '../port.ts';
import { fetchTransient, TransientError, withRetries, type RetryPolicy } from '../../imagery/remote/retry.ts';

export interface OidcOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  refreshToken?: string;
  username?: string;
  password?: string;
  /** Renew this long before expiry. Default 60 s. */
  renewBeforeMs?: number;
  retry?: RetryPolicy;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface Held {
  access: string;
  expiresAt: number;
}

export class OidcTokenSource {
  private current: Promise<Held> | null = null;
  private refresh: string;
  private readonly now: () => number;
  /** Token requests made. */
  requests = 0;

  constructor(private readonly opts: OidcOptions) {
    this.refresh = opts.refreshToken ?? '';
    this.now = opts.now ?? Date.now;
    if (!opts.clientSecret && !this.refresh && !(opts.username && opts.password)) {
      throw new Error('OIDC needs a client secret, a refresh token, or a username and password');
    }
  }

  async token(): Promise<string> {
    const held = this.current;
    if (held) {
      const h = await held.catch(() => null);
      if (h && h.expiresAt - (this.opts.renewBeforeMs ?? 60_000) > this.now()) return h.access;
      if (this.current !== held) return this.token();
    }
    const p = this.fetchToken();
    this.current = p;
    p.catch(() => {
      if (this.current === p) this.current = null;
    });
    return (await p).access;
  }

  async headers(): Promise<Record<string, string>> {
    return { authorization: `Bearer ${await this.token()}` };
  }

  private form(): URLSearchParams {
    const f = new URLSearchParams({ client_id: this.opts.clientId });
    if (this.opts.clientSecret) f.set('client_secret', this.opts.clientSecret);
    if (this.refresh) {
      f.set('grant_type', 'refresh_token');
      f.set('refresh_token', this.refresh);
    } else if (this.opts.username && this.opts.password) {
      f.set('grant_type', 'password');
      f.set('username', this.opts.username);
      f.set('password', this.opts.password);
    } else {
      f.set('grant_type', 'client_credentials');
    }
    return f;
  }

  private async fetchToken(): Promise<Held> {
    try {
      return await withRetries(async () => {
        this.requests++;
        const res = await fetchTransient(
          this.opts.fetch ?? fetch,
          this.opts.tokenUrl,
          { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: this.form().toString() },
          this.opts.timeoutMs ?? 30_000,
        );
        if (!res.ok) {
          const text = await res.text().catch(() => '');
          throw new CatalogError(`OIDC token endpoint answered ${res.status}: ${text.slice(0, 200)}`, 'http', res.status);
        }
        const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; refresh_token?: unknown };
        if (typeof body.access_token !== 'string') throw new CatalogError('OIDC token answer has no access_token', 'response');
        if (typeof body.refresh_token === 'string' && !this.opts.clientSecret) this.refresh = body.refresh_token;
        const lifetime = typeof body.expires_in === 'number' ? body.expires_in : 600;
        return { access: body.access_token, expiresAt: this.now() + lifetime * 1000 };
      }, this.opts.retry);
    } catch (e) {
      if (e instanceof TransientError) throw new CatalogError(`OIDC token endpoint unavailable: ${e.message}`, e.reason, e.status);
      throw e;
    }
  }
}
