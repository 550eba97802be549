import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { FAMILIES } from '../../contract/enums.ts';
import { ENDPOINTS } from '../../endpoints/index.ts';
import { errorResponses, JobIdParams, JobListResponse, JobStatusResponse, JobSubmissionResponse, PreviewResponse, SceneListQuery, SceneListResponse, type SubmissionBody } from '../../contract/schemas.ts';
import type { JobService } from '../../jobs/service.ts';
import { principalOf } from '../auth.ts';

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Makes the submission safe to retry: the same key and body return the same job, charged once',
    }),
  ),
});

function idempotencyKeyOf(headers: Record<string, unknown>): string | undefined {
  const v = headers['idempotency-key'];
  return typeof v === 'string' ? v : undefined;
}

const security = [{ bearerAuth: [] }];

/** Headers of every per-key response (spec: List jobs, rule 9; Authentication, rule 3). */
const PRIVATE_HEADERS = {
  'Cache-Control': 'private, no-store, no-cache, must-revalidate',
  Vary: 'Authorization',
};

/**
 * The /api/v1 routes (registered under that prefix). Each declares the scope it needs in
 * `config.access`; the context's onRequest hook (api/auth.ts) enforces it before validation.
 */
export async function jobRoutes(app: FastifyInstance, opts: { jobs: JobService }): Promise<void> {
  const { jobs } = opts;

  for (const family of FAMILIES) {
    for (const { id: endpoint, body } of ENDPOINTS) {
      app.post(
        `/${family}/${endpoint}`,
        {
          config: { access: { scope: 'jobs:write', endpoint } },
          schema: {
            tags: [family],
            summary: `Submit a ${endpoint} job (${family} family)`,
            security,
            body,
            headers: IdempotencyHeaders,
            response: { 200: JobSubmissionResponse, ...errorResponses(400, 401, 402, 403, 404, 409, 413, 415, 429) },
          },
        },
        async (request, reply) => {
          const job = await jobs.submit(principalOf(request), family, endpoint, request.body as SubmissionBody, idempotencyKeyOf(request.headers));
          reply.headers(PRIVATE_HEADERS);
          return job;
        },
      );
    }
  }

  for (const { id: endpoint, body } of ENDPOINTS) {
    app.post(
      `/analyze/${endpoint}/preview`,
      {
        config: { access: { scope: 'jobs:write', endpoint } },
        schema: {
          tags: ['analyze'],
          summary: `Estimate area and credits of a ${endpoint} job without creating it`,
          security,
          body,
          response: { 200: PreviewResponse, ...errorResponses(400, 401, 403, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const preview = await jobs.preview(principalOf(request), 'analyze', endpoint, request.body as SubmissionBody);
        reply.headers(PRIVATE_HEADERS);
        return preview;
      },
    );
  }

  app.get(
    '/jobs',
    {
      config: { access: { scope: 'jobs:read' } },
      schema: {
        tags: ['jobs'],
        summary: 'List the newest jobs of this account',
        security,
        querystring: Type.Object({
          status: Type.Optional(Type.String({ description: 'Comma-separated: pending, processing, completed, failed' })),
          endpoint_id: Type.Optional(Type.String({ description: 'Comma-separated endpoint ids' })),
          limit: Type.Optional(Type.String({ description: 'Integer 1–30, default 30' })),
        }),
        response: { 200: JobListResponse, ...errorResponses(400, 401, 403, 429) },
      },
      // Query rules (repeated keys, lowercase, 128 chars) are applied by the service, not AJV.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return jobs.list(principalOf(request), request.query as Record<string, string | string[]>);
    },
  );

  app.get(
    '/jobs/:job_id',
    {
      config: { access: { scope: 'jobs:read' } },
      schema: {
        tags: ['jobs'],
        summary: 'Get a job',
        security,
        params: JobIdParams,
        response: { 200: JobStatusResponse, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return jobs.get(principalOf(request), (request.params as { job_id: string }).job_id);
    },
  );

  app.get(
    '/scenes',
    {
      config: { access: { scope: 'jobs:read' } },
      schema: {
        tags: ['scenes'],
        summary: 'Search the scene catalog (find scene ids for scene_id input)',
        security,
        querystring: SceneListQuery,
        response: { 200: SceneListResponse, ...errorResponses(400, 401, 403, 429) },
      },
      // The service applies the query rules, so errors carry its messages.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return jobs.scenes(principalOf(request), request.query as Record<string, unknown>);
    },
  );

  for (const format of ['geojson', 'zip'] as const) {
    app.get(
      `/jobs/:job_id/result.${format}`,
      {
        config: { access: { scope: 'jobs:read' } },
        schema: {
          tags: ['jobs'],
          summary:
            format === 'geojson'
              ? 'Download the GeoJSON result (302 to a signed URL)'
              : 'Download the ZIP result of an idlefarm job (302 to a signed URL)',
          description:
            (format === 'geojson'
              ? 'A GeoJSON FeatureCollection whose features carry area_sqm and confidence. Ship features also carry length_m, width_m, heading_deg (0–180) with heading_ambiguous: true, distance_to_shore_m and near_shore (≤ 2 km); fixed_structure when compared with earlier acquisitions of the track; with ais_id, mmsi and ais_distance_m or dark: true, and a detected: false feature per unmatched AIS vessel (docs/api.md, Ship result features). An idlefarm job is 404 here (its result is result.zip). '
              : 'An idlefarm job\'s archive (fields.geojson, summary.csv, series.csv, a chart per field, README.txt; docs/idlefarm.md). Any other job is 404 here (its result is result.geojson). ') +
            '404 also for a failed job, an unknown job or another account\'s; 409 NOT_READY while pending or processing; 410 GONE after the retention (SARWATCH_RESULT_RETENTION_DAYS).',
          security,
          params: JobIdParams,
          response: { 302: Type.Null({ description: 'Location: signed, expiring URL of the result' }), ...errorResponses(401, 403, 404, 409, 410, 429) },
        },
      },
      async (request, reply) => {
        const url = await jobs.resultUrl(principalOf(request), (request.params as { job_id: string }).job_id, format);
        reply.headers(PRIVATE_HEADERS);
        return reply.redirect(url, 302);
      },
    );
  }

  for (const [route, picture, summary, what] of [
    ['quicklook.png', 'quicklook', 'Download the quicklook PNG: what was analysed, detections drawn (302 to a signed URL)', 'the PNG'],
    ['overlay', 'overlay', "Download the overlay PNG on a Web-Mercator grid, placed by the job's overlay.bounds (302 to a signed URL)", 'the PNG'],
    [
      'map-layer',
      'map layer',
      "Download a timeseries job's map layer: GeoJSON of the result's cells with their deviation only, coordinates rounded to 6 decimals (302 to a signed URL)",
      'the GeoJSON (application/geo+json)',
    ],
  ] as const) {
    app.get(
      `/jobs/:job_id/${route}`,
      {
        config: { access: { scope: 'jobs:read' } },
        schema: {
          tags: ['jobs'],
          summary,
          security,
          params: JobIdParams,
          response: { 302: Type.Null({ description: `Location: signed, expiring URL of ${what}` }), ...errorResponses(401, 403, 404, 410, 429) },
        },
      },
      async (request, reply) => {
        const url = await jobs.pictureUrl(principalOf(request), (request.params as { job_id: string }).job_id, picture);
        reply.headers(PRIVATE_HEADERS);
        return reply.redirect(url, 302);
      },
    );
  }
}
