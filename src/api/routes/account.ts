/**
 * GET /api/v1/account: what the calling key may do and its account's credit balance, so a
 * client (the dashboard) can show the balance and offer only what the key allows without
 * trying a request first. Any valid key may read this about itself; no scope is needed.
 */
import type { FastifyInstance } from 'fastify';
import { AccountResponse, errorResponses } from '../../contract/schemas.ts';
import { balanceMicros, fromMicros } from '../../jobs/credits.ts';
import type { Db } from '../../store/index.ts';
import { principalOf } from '../auth.ts';


export async function accountRoutes(app: FastifyInstance, opts: { db: Db }): Promise<void> {
  app.get(
    '/account',
    {
      schema: {
        tags: ['jobs'],
        summary: "The calling key's scopes and allowed endpoints, and its account's credit balance",
        security: [{ bearerAuth: [] }],
        response: { 200: AccountResponse, ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const balance = (await balanceMicros(opts.db, principal.accountId)) ?? 0;
      reply.headers({ 'Cache-Control': 'private, no-store, no-cache, must-revalidate', Vary: 'Authorization' });
      return {
        account_id: principal.accountId,
        credits: { balance: fromMicros(balance) },
        scopes: [...principal.scopes].sort(),
        endpoints: principal.endpoints ? [...principal.endpoints].sort() : null,
      };
    },
  );
}
