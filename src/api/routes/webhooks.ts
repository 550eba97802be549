/**
 * /api/v1/webhooks (issue 21 §2): managed with the monitors:write scope, read with jobs:read.
 * Thin: parse, call the webhook service, serialise.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { errorResponses } from '../../contract/schemas.ts';
import { Delivery, DeliveryList, DeliveryParams, Webhook, WebhookCreateBody, WebhookIdParams, WebhookList, WebhookWithSecret } from '../../contract/webhooks.ts';
import type { WebhookService } from '../../events/webhooks.ts';
import { principalOf } from '../auth.ts';

const security = [{ bearerAuth: [] }];
const PRIVATE_HEADERS = { 'Cache-Control': 'private, no-store, no-cache, must-revalidate', Vary: 'Authorization' };
const tags = ['webhooks'];

export async function webhookRoutes(app: FastifyInstance, opts: { webhooks: WebhookService }): Promise<void> {
  const { webhooks } = opts;
  const id = (request: { params: unknown }) => (request.params as { webhook_id: string }).webhook_id;

  app.post(
    '/webhooks',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: {
        tags,
        summary: 'Create a webhook: events are POSTed to the URL, signed (Standard Webhooks); the secret is in this answer only',
        security,
        body: WebhookCreateBody,
        response: { 201: WebhookWithSecret, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(principalOf(request), request.body as WebhookCreateBody);
      reply.headers(PRIVATE_HEADERS).code(201);
      return created;
    },
  );

  app.get(
    '/webhooks',
    { config: { access: { scope: 'jobs:read' } }, schema: { tags, summary: 'List the webhooks of this account (secrets are never shown again)', security, response: { 200: WebhookList, ...errorResponses(401, 403, 429) } } },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return webhooks.list(principalOf(request));
    },
  );

  app.get(
    '/webhooks/:webhook_id',
    { config: { access: { scope: 'jobs:read' } }, schema: { tags, summary: 'Get a webhook: its state and, when disabled, why', security, params: WebhookIdParams, response: { 200: Webhook, ...errorResponses(401, 403, 404, 429) } } },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return webhooks.get(principalOf(request), id(request));
    },
  );

  app.delete(
    '/webhooks/:webhook_id',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: { tags, summary: 'Delete a webhook and its delivery log', security, params: WebhookIdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 429) } },
    },
    async (request, reply) => {
      await webhooks.delete(principalOf(request), id(request));
      reply.headers(PRIVATE_HEADERS).code(204);
      return null;
    },
  );

  app.post(
    '/webhooks/:webhook_id/rotate',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: {
        tags,
        summary: 'Rotate the signing secret: the new one is in this answer only; the old one also signs for 24 h',
        security,
        params: WebhookIdParams,
        response: { 200: WebhookWithSecret, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return webhooks.rotate(principalOf(request), id(request));
    },
  );

  app.post(
    '/webhooks/:webhook_id/enable',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: { tags, summary: 'Enable a webhook disabled after 24 h of failed deliveries', security, params: WebhookIdParams, response: { 200: Webhook, ...errorResponses(401, 403, 404, 429) } },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return webhooks.enable(principalOf(request), id(request));
    },
  );

  app.get(
    '/webhooks/:webhook_id/deliveries',
    {
      config: { access: { scope: 'jobs:read' } },
      schema: {
        tags,
        summary: 'The delivery log, newest first: status, attempts, last response code, next try',
        security,
        params: WebhookIdParams,
        querystring: Type.Object({
          limit: Type.Optional(Type.String({ description: 'Integer 1–200, default 50' })),
          status: Type.Optional(Type.String({ description: 'pending, delivered or failed' })),
        }),
        response: { 200: DeliveryList, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return webhooks.deliveries(principalOf(request), id(request), request.query as { limit?: string; status?: string });
    },
  );

  app.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: {
        tags,
        summary: 'Send one event again (the same event id), now, with a new 24 h retry window',
        security,
        params: DeliveryParams,
        response: { 202: Delivery, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const p = request.params as { webhook_id: string; delivery_id: string };
      const delivery = await webhooks.redeliver(principalOf(request), p.webhook_id, p.delivery_id);
      reply.headers(PRIVATE_HEADERS).code(202);
      return delivery;
    },
  );
}
