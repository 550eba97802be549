/**
 * Who is calling and what may they do, decided before the body is parsed or validated:
 * 401 (no valid key; 429 instead when its address keeps failing), then 429 (per-key rate), then 403
 * (the route's scope). Submission and preview share one access rule, so they answer alike.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.ts';
import type { SubmittableEndpoint } from '../contract/enums.ts';
import { authenticate, type Principal } from '../jobs/accounts.ts';
import type { JobService } from '../jobs/service.ts';
import type { Db } from '../store/index.ts';
import type { RateLimit } from './rateLimit.ts';

/**
 * What a route needs, declared in its `config.access`. `uploads:read` is not a scope of its
 * own: reading uploads takes `jobs:read` or `uploads:write` (docs/decisions.md, Permissions).
 */
export type Access =
  | { scope: 'jobs:read' }
  | { scope: 'jobs:write'; endpoint: SubmittableEndpoint }
  | { scope: 'uploads:write' }
  | { scope: 'uploads:read' }
  | { scope: 'monitors:write' };

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** `Authorization: Bearer <key>` → the key text, or UNAUTHORIZED. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw new ApiError('UNAUTHORIZED', 'missing or malformed Authorization header; expected "Bearer <API key>"');
  return match[1];
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('UNAUTHORIZED');
  return request.principal;
}

export interface GuardDeps {
  db: Db;
  jobs: JobService;
  /** Requests per API key. */
  requests: RateLimit;
  /** Failed authentications per client address. */
  failures: RateLimit;
}

/**
 * The onRequest hook of the /api/v1 context. The failed-authentication budget limits failed
 * attempts only: a key that authenticates always goes on to its own per-key limit, whatever
 * other callers from its address did (behind a proxy they all share one address unless
 * SARWATCH_TRUST_PROXY names it). A request that does not authenticate (a wrong, revoked or
 * malformed key, or none) counts against its address; once the address is over its budget it
 * gets 429 instead of 401 until the window ends. Why this still bounds key guessing:
 * docs/decisions.md, Security.
 */
export function authGuard(deps: GuardDeps): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    let principal: Principal | null;
    try {
      principal = await authenticate(deps.db, bearerToken(request));
    } catch (e) {
      throw e instanceof ApiError ? await failed(deps.failures, request.ip, e) : e; // not counted: a store failure
    }
    if (!principal) throw await failed(deps.failures, request.ip, new ApiError('UNAUTHORIZED', 'invalid or revoked API key'));
    request.principal = principal;
    const limited = await deps.requests.hit(principal.keyId);
    if (limited !== null) {
      throw new ApiError('RATE_LIMITED', `rate limit of ${deps.requests.perMinute} requests per minute exceeded; retry in ${limited} s`, undefined, limited);
    }
    const access = request.routeOptions.config?.access;
    if (access?.scope === 'jobs:write') deps.jobs.authorizeSubmission(principal, access.endpoint);
    else if (access?.scope === 'jobs:read') deps.jobs.authorizeRead(principal);
    else if (access?.scope === 'uploads:write') authorizeUploadWrite(principal);
    else if (access?.scope === 'uploads:read') authorizeUploadRead(principal);
    else if (access?.scope === 'monitors:write') authorizeMonitorWrite(principal);
  };
}

export function authorizeUploadWrite(principal: Principal): void {
  if (!principal.scopes.has('uploads:write')) throw new ApiError('FORBIDDEN', 'this API key lacks the uploads:write scope');
}

/** Monitors and webhooks are managed with monitors:write; they are read with jobs:read (docs/api.md). */
export function authorizeMonitorWrite(principal: Principal): void {
  if (!principal.scopes.has('monitors:write')) throw new ApiError('FORBIDDEN', 'this API key lacks the monitors:write scope');
}

/** An uploader polls its own uploads; a reader of jobs may see the uploads jobs name. */
export function authorizeUploadRead(principal: Principal): void {
  if (!principal.scopes.has('jobs:read') && !principal.scopes.has('uploads:write')) {
    throw new ApiError('FORBIDDEN', 'reading uploads (polygons, images, AIS) needs the jobs:read or uploads:write scope');
  }
}

/** Counts a failed authentication of `ip`; the error to answer: `unauthorized` (401) within its budget, 429 past it. */
async function failed(failures: RateLimit, ip: string, unauthorized: ApiError): Promise<ApiError> {
  const over = await failures.hit(ip);
  return over === null ? unauthorized : tooManyFailures(failures.perMinute, over);
}

function tooManyFailures(perMinute: number, retryAfter: number): ApiError {
  return new ApiError(
    'RATE_LIMITED',
    `more than ${perMinute} failed authentications per minute from this address; retry in ${retryAfter} s`,
    undefined,
    retryAfter,
  );
}
