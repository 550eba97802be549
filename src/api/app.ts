/**
 * The Fastify application: error envelope, auth, rate limit, routes, OpenAPI and docs.
 * Thin by design: it parses HTTP and calls the job service.
 *
 * Everything under /api/v1 is one encapsulated context whose onRequest hook authenticates
 * and checks the route's scope, so 401, 429 and 403 come before the body is parsed or
 * validated (docs/decisions.md, "Validation order").
 */
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Type from 'typebox';
import type { Db } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { JobService } from '../jobs/service.ts';
import { installErrorHandling, notFound } from './errors.ts';
import { clientErrorHandler, frameworkErrorHandler, installTransportGuards } from './transportErrors.ts';
import { MemoryRateLimit, type Clock, type RateLimit } from './rateLimit.ts';
import { authGuard } from './auth.ts';
import { loggerOptions } from './logging.ts';
import { readinessRoute, type ReadinessProbe } from './readiness.ts';
import { jobRoutes } from './routes/jobs.ts';
import { installRequestMetrics, metricsRoute } from './metricsRoute.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { objectRoutes } from './routes/objects.ts';
import { polygonRoutes } from './routes/polygons.ts';
import type { PolygonUploadService } from '../uploads/service.ts';
import { tifRoutes } from './routes/tifs.ts';
import { aisRoutes } from './routes/ais.ts';
import type { AisUploadService } from '../uploads/aisService.ts';
import { jobEventRoutes } from './routes/jobEvents.ts';
import { JobEventHub } from '../events/jobEvents.ts';
import { MemoryStreamSlots } from '../events/streamSlots.ts';
import { RedisStreamSlots } from '../events/redisStreamSlots.ts';
import type { TifUploadService } from '../uploads/tifService.ts';
import { accountRoutes } from './routes/account.ts';
import { dashboardRoutes, objectStoreOrigins } from './dashboard.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import type { WebhookService } from '../events/webhooks.ts';
import { monitorRoutes } from './routes/monitors.ts';
import type { MonitorService } from '../monitors/service.ts';

export interface ApiDeps {
  db: Db;
  config: Config;
  jobs: JobService;
  uploads: PolygonUploadService;
  tifs: TifUploadService;
  ais: AisUploadService;
  /** Webhooks (issue 21); their routes are absent without it. */
  webhooks?: WebhookService;
  /** Monitors (issue 21); their routes are absent without it. */
  monitors?: MonitorService;
  objects: ObjectStore;
  /** Secret of the local object store's signed URLs; null when objects are presigned elsewhere (S3). */
  objectSecret: Buffer | null;
  /** What /readyz checks. */
  probes: readonly ReadinessProbe[];
  logger?: boolean | object;
  version: string;
  /** Time for the rate limits (tests move it instead of sleeping). */
  clock?: Clock;
  /** Shared rate limits (Redis); by default each process counts in memory. */
  limits?: { requests: RateLimit; failures: RateLimit };
  /** Serves /metrics and measures requests when given. */
  metrics?: ServiceMetrics;
}

export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? Date.now;
  const guard = authGuard({
    db: deps.db,
    jobs: deps.jobs,
    requests: deps.limits?.requests ?? new MemoryRateLimit(deps.config.rateLimitPerMinute, clock),
    failures: deps.limits?.failures ?? new MemoryRateLimit(deps.config.authFailuresPerMinute, clock),
  });
  const app = Fastify({
    logger: loggerOptions(deps.logger),
    bodyLimit: deps.config.maxRequestBytes,
    // request.ip (the failed-auth throttle's key, the request log) is the client behind known proxies.
    trustProxy: deps.config.trustProxy,
    // Reject, never silently drop or coerce: a typo in a field name must be a 400.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: true },
    // What Node and Fastify would answer with their own bodies is answered with the envelope.
    http: { requireHostHeader: false },
    return503OnClosing: false,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler(guard),
  });
  installErrorHandling(app);
  installTransportGuards(app);
  if (deps.metrics) installRequestMetrics(app, deps.metrics);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'sarwatch API',
        version: deps.version,
        description:
          'Asynchronous Sentinel-1 analysis: submit a job, poll it, download GeoJSON. Errors use the envelope {"error": {"code", "message"}}.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key' } } },
      tags: [
        { name: 'analyze', description: 'analyze family: RTC imagery for building change, time series and idle farmland; GRD for ship and oilslick (as detect)' },
        { name: 'detect', description: 'detect family: GRD imagery' },
        { name: 'jobs', description: 'poll, list and download' },
        { name: 'scenes', description: 'the scene catalog' },
        { name: 'uploads', description: 'polygon uploads (AOI files a job names by polygon_id) and image uploads (σ0 GeoTIFFs and SAFE zips a job names by tif_id) and AIS uploads (CSV positions a ship job matches by ais_id)' },
        { name: 'monitors', description: 'places watched on every new scene: each run is a job of the account' },
        { name: 'webhooks', description: 'signed event deliveries (Standard Webhooks): job.completed, job.failed, monitor.triggered, monitor.suspended' },
        { name: 'service', description: 'liveness, readiness and metrics' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // Job event streams: one shared store poller per process; every stream ends when the API
  // closes. The per-key limit counts in Redis when there is one (all API processes together).
  const { config } = deps;
  const slots = config.redisUrl
    ? new RedisStreamSlots({ redisUrl: config.redisUrl, prefix: `${config.queueName}:event-streams`, perKey: config.maxEventStreamsPerKey })
    : new MemoryStreamSlots(config.maxEventStreamsPerKey);
  const events = new JobEventHub(deps.db, {
    pollMs: config.eventsPollSeconds * 1000,
    heartbeatMs: config.eventsHeartbeatSeconds * 1000,
    slots,
    onError: (e) => app.log.error({ err: String(e) }, 'job event poll failed'),
  });
  app.addHook('preClose', async () => events.close());
  app.addHook('onClose', async () => slots.close());

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['service'],
        summary: 'Liveness: the process answers (checks nothing else; see /readyz)',
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
      },
    },
    async () => ({ status: 'ok' as const, version: deps.version }),
  );
  readinessRoute(app, deps.probes);
  if (deps.metrics) metricsRoute(app, deps.metrics);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(
    async (api) => {
      api.addHook('onRequest', guard);
      api.setNotFoundHandler(notFound);
      await api.register(jobRoutes, { jobs: deps.jobs });
      await api.register(polygonRoutes, { uploads: deps.uploads, maxUploadBytes: deps.config.maxUploadBytes });
      await api.register(tifRoutes, { tifs: deps.tifs });
      await api.register(aisRoutes, { ais: deps.ais, maxUploadBytes: deps.config.maxUploadBytes });
      await api.register(accountRoutes, { db: deps.db });
      if (deps.webhooks) await api.register(webhookRoutes, { webhooks: deps.webhooks });
      if (deps.monitors) await api.register(monitorRoutes, { monitors: deps.monitors });
      await api.register(jobEventRoutes, { jobs: deps.jobs, hub: events });
    },
    { prefix: '/api/v1' },
  );
  if (deps.objectSecret) await app.register(objectRoutes, { objects: deps.objects, secret: deps.objectSecret });
  await app.register(dashboardRoutes, { webDir: deps.config.webDir, basemapUrl: deps.config.basemapUrl, connectOrigins: objectStoreOrigins(deps.config) });
  return app;
}
