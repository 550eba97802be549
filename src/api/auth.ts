import type { FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.ts';
import type { Principal } from '../jobs/accounts.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
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
