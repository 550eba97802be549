/**
 * /api/v1/monitors (issue 21 §1): managed with the monitors:write scope, read with jobs:read.
 * Thin: parse, call the monitor service, serialise.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { errorResponses } from '../../contract/schemas.ts';
import { Monitor, MonitorCreateBody, MonitorIdParams, MonitorList, MonitorPatchBody, MonitorPreview, MonitorRunList } from '../../contract/monitors.ts';
import type { MonitorService } from '../../monitors/service.ts';
import { principalOf } from '../auth.ts';

const security = [{ bearerAuth: [] }];
const PRIVATE_HEADERS = { 'Cache-Control': 'private, no-store, no-cache, must-revalidate', Vary: 'Authorization' };
const tags = ['monitors'];

export async function monitorRoutes(app: FastifyInstance, opts: { monitors: MonitorService }): Promise<void> {
  const { monitors } = opts;
  const id = (request: { params: unknown }) => (request.params as { monitor_id: string }).monitor_id;

  app.post(
    '/monitors',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: {
        tags,
        summary: 'Create a monitor: a job of this account runs on each new scene of the AOI (or every N days), within a monthly credit cap',
        security,
        body: MonitorCreateBody,
        response: { 201: Monitor, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const created = await monitors.create(principalOf(request), request.body as MonitorCreateBody);
      reply.headers(PRIVATE_HEADERS).code(201);
      return created;
    },
  );

  app.post(
    '/monitors/preview',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: {
        tags,
        summary: 'What one run of this monitor would cost and how many runs the last 90 days of the catalog would have made',
        security,
        body: MonitorCreateBody,
        response: { 200: MonitorPreview, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return monitors.preview(principalOf(request), request.body as MonitorCreateBody);
    },
  );

  app.get(
    '/monitors',
    { config: { access: { scope: 'jobs:read' } }, schema: { tags, summary: 'List the monitors of this account (newest 100)', security, response: { 200: MonitorList, ...errorResponses(401, 403, 429) } } },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return monitors.list(principalOf(request));
    },
  );

  app.get(
    '/monitors/:monitor_id',
    { config: { access: { scope: 'jobs:read' } }, schema: { tags, summary: 'Get a monitor: state, runs, last scene, credits spent this month', security, params: MonitorIdParams, response: { 200: Monitor, ...errorResponses(401, 403, 404, 429) } } },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return monitors.get(principalOf(request), id(request));
    },
  );

  app.get(
    '/monitors/:monitor_id/runs',
    { config: { access: { scope: 'jobs:read' } }, schema: { tags, summary: "The monitor's runs, newest scene first (100)", security, params: MonitorIdParams, response: { 200: MonitorRunList, ...errorResponses(401, 403, 404, 429) } } },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return monitors.runs(principalOf(request), id(request));
    },
  );

  app.patch(
    '/monitors/:monitor_id',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: { tags, summary: 'Pause, resume, or change the condition or the cap', security, params: MonitorIdParams, body: MonitorPatchBody, response: { 200: Monitor, ...errorResponses(400, 401, 403, 404, 413, 415, 429) } },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return monitors.patch(principalOf(request), id(request), request.body as MonitorPatchBody);
    },
  );

  app.delete(
    '/monitors/:monitor_id',
    {
      config: { access: { scope: 'monitors:write' } },
      schema: { tags, summary: 'Delete a monitor (its jobs stay)', security, params: MonitorIdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 429) } },
    },
    async (request, reply) => {
      await monitors.delete(principalOf(request), id(request));
      reply.headers(PRIVATE_HEADERS).code(204);
      return null;
    },
  );
}
