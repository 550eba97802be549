/**
 * /api/v1/ais: AIS uploads (issue 23 §4), as /api/v1/polygons: a CSV body (text/csv) read
 * whole within SARWATCH_MAX_UPLOAD_BYTES (413 past it), any other Content-Type 415 before the
 * body is read; scopes checked by the /api/v1 onRequest hook, before the body.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ApiError } from '../../contract/errors.ts';
import { AisIdParams, AisUpload, AisUploadAccepted, AisUploadList, errorResponses } from '../../contract/schemas.ts';
import { AIS_MEDIA_TYPES, AisUploadService } from '../../uploads/aisService.ts';
import { principalOf } from '../auth.ts';

const security = [{ bearerAuth: [] }];
const PRIVATE_HEADERS = {
  'Cache-Control': 'private, no-store, no-cache, must-revalidate',
  Vary: 'Authorization',
};

export async function aisRoutes(app: FastifyInstance, opts: { ais: AisUploadService; maxUploadBytes: number }): Promise<void> {
  const { ais } = opts;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(AIS_MEDIA_TYPES, { parseAs: 'buffer', bodyLimit: opts.maxUploadBytes }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `AIS uploads take Content-Type ${AIS_MEDIA_TYPES.join(', ')}`), undefined);
  });

  app.post(
    '/ais',
    {
      bodyLimit: opts.maxUploadBytes,
      config: { access: { scope: 'uploads:write' } },
      schema: {
        tags: ['uploads'],
        summary: 'Upload AIS positions (CSV) for a ship job to match (ais_id)',
        description:
          'The body is a CSV file (Content-Type text/csv, UTF-8): a header naming mmsi,timestamp,lat,lon and optionally sog,cog,heading,length (any order), then one fix per line. ' +
          'timestamp is ISO 8601 with a zone; sog in knots, cog and heading in degrees, length in metres; an empty optional field (or AIS "not available": sog 102.3, heading 511) is unknown. ' +
          'A bad line is 400 naming its line number and field. Limits: SARWATCH_MAX_UPLOAD_BYTES (413), SARWATCH_MAX_UPLOAD_FEATURES fixes (400).',
        security,
        consumes: AIS_MEDIA_TYPES,
        body: Type.String({ format: 'binary', description: 'The CSV file' }),
        response: { 202: AisUploadAccepted, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      AisUploadService.checkMediaType(request.headers['content-type']);
      const body = request.body;
      if (!Buffer.isBuffer(body) || body.byteLength === 0) throw new ApiError('VALIDATION_ERROR', 'the request has no body; send the CSV as the body');
      const accepted = await ais.upload(principalOf(request), body);
      reply.headers(PRIVATE_HEADERS).code(202);
      return accepted;
    },
  );

  app.get(
    '/ais',
    {
      config: { access: { scope: 'uploads:read' } },
      schema: { tags: ['uploads'], summary: 'List the newest AIS uploads of this account (at most 100)', security, response: { 200: AisUploadList, ...errorResponses(401, 403, 429) } },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return ais.list(principalOf(request));
    },
  );

  app.get(
    '/ais/:ais_id',
    {
      config: { access: { scope: 'uploads:read' } },
      schema: { tags: ['uploads'], summary: 'Get an AIS upload: status, fix and vessel counts, time span, error', security, params: AisIdParams, response: { 200: AisUpload, ...errorResponses(401, 403, 404, 429) } },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return ais.get(principalOf(request), (request.params as { ais_id: string }).ais_id);
    },
  );

  app.delete(
    '/ais/:ais_id',
    {
      config: { access: { scope: 'uploads:write' } },
      schema: {
        tags: ['uploads'],
        summary: 'Delete an AIS upload and its files (jobs already submitted on it fail when they run)',
        security,
        params: AisIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await ais.delete(principalOf(request), (request.params as { ais_id: string }).ais_id);
      reply.headers(PRIVATE_HEADERS).code(204);
      return null;
    },
  );
}
