/**
 * The Fastify application: error envelope, auth, rate limit, routes, OpenAPI and docs.
 * Thin by design: it parses HTTP and calls the job service.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Db } from '../store/index.ts';
import type { Config } from '../config.ts';
import type { ObjectStore } from '../objects/port.ts';
import type { JobService } from '../jobs/service.ts';
import { authenticate } from '../jobs/accounts.ts';
import { ApiError } from '../contract/errors.ts';
import { installErrorHandling } from './errors.ts';
import { RateLimiter } from './rateLimit.ts';
import { bearerToken } from './auth.ts';
import { jobRoutes } from './routes/jobs.ts';
import { objectRoutes } from './routes/objects.ts';

export interface ApiDeps {
  db: Db;
  config: Config;
  jobs: JobService;
  objects: ObjectStore;
  /** Secret of the local object store's signed URLs; null when objects are presigned elsewhere (S3). */
  objectSecret: Buffer | null;
  logger?: boolean | object;
  version: string;
}

export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.config.maxRequestBytes,
    // Reject, never silently drop or coerce: a typo in a field name must be a 400.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: true },
  });
  installErrorHandling(app);

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
        { name: 'analyze', description: 'analyze family: RTC imagery for building change and time series' },
        { name: 'detect', description: 'detect family: GRD imagery' },
        { name: 'jobs', description: 'poll, list and download' },
        { name: 'scenes', description: 'the scene catalog' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  const limiter = new RateLimiter(deps.config.rateLimitPerMinute);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    const principal = await authenticate(deps.db, bearerToken(request));
    if (!principal) throw new ApiError('UNAUTHORIZED', 'invalid or revoked API key');
    request.principal = principal;
    limiter.hit(principal.keyId);
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', version: deps.version }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(jobRoutes, { jobs: deps.jobs });
  if (deps.objectSecret) await app.register(objectRoutes, { objects: deps.objects, secret: deps.objectSecret });
  return app;
}
