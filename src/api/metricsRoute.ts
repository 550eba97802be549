/**
 * `GET /metrics` (Prometheus text format) and the HTTP latency histogram behind it. Outside
 * /api/v1 and without authentication: bind or firewall it in production (docs/deploy.md).
 * Requests are labelled by route pattern (`/api/v1/jobs/:job_id`), never by raw URL, so
 * the label set stays bounded; /metrics itself is not measured.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../metrics.ts';

const METRICS_PATH = '/metrics';

/** Install before any route plugin is registered, so the hook reaches every context. */
export function installRequestMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    if (route === METRICS_PATH) return;
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
}

export function metricsRoute(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.get(
    METRICS_PATH,
    {
      schema: {
        tags: ['service'],
        summary: 'Prometheus metrics: HTTP latency, jobs by state, queue depth, job durations, failures by code (unauthenticated: keep it off public networks)',
        produces: ['text/plain'],
        response: { 200: { type: 'string', description: 'Prometheus text exposition format' } },
      },
    },
    async (_request, reply) => {
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(body);
    },
  );
}
