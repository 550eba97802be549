/**
 * /api/v1/polygons: polygon uploads (issue 14). Its own encapsulated context, with body
 * parsers for the upload formats only: the body is read as a stream and refused with 413
 * once it passes SARWATCH_MAX_UPLOAD_BYTES; any other Content-Type is 415 before the body is
 * read. Scopes are checked by the /api/v1 onRequest hook, before the body (403 before 400).
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ApiError } from '../../contract/errors.ts';
import { errorResponses, PolygonIdParams, PolygonUpload, PolygonUploadAccepted, PolygonUploadList } from '../../contract/schemas.ts';
import { UPLOAD_MEDIA_TYPES } from '../../uploads/read.ts';
import { PolygonUploadService } from '../../uploads/service.ts';
import { principalOf } from '../auth.ts';

const security = [{ bearerAuth: [] }];
const PRIVATE_HEADERS = {
  'Cache-Control': 'private, no-store, no-cache, must-revalidate',
  Vary: 'Authorization',
};
const MEDIA_TYPES = Object.keys(UPLOAD_MEDIA_TYPES);

export async function polygonRoutes(app: FastifyInstance, opts: { uploads: PolygonUploadService; maxUploadBytes: number }): Promise<void> {
  const { uploads } = opts;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(MEDIA_TYPES, { parseAs: 'buffer', bodyLimit: opts.maxUploadBytes }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `polygon uploads take Content-Type ${MEDIA_TYPES.join(', ')}`), undefined);
  });

  app.post(
    '/polygons',
    {
      bodyLimit: opts.maxUploadBytes,
      config: { access: { scope: 'uploads:write' } },
      schema: {
        tags: ['uploads'],
        summary: 'Upload a polygon file (GeoJSON FeatureCollection, KML or zipped Shapefile); validated asynchronously',
        description: `The body is the file itself, with Content-Type ${MEDIA_TYPES.join(', ')} (application/zip: a zipped Shapefile). Size and feature-count limits: SARWATCH_MAX_UPLOAD_BYTES (413), SARWATCH_MAX_UPLOAD_FEATURES (400).`,
        security,
        consumes: MEDIA_TYPES,
        body: Type.String({ format: 'binary', description: 'The file: GeoJSON FeatureCollection, KML document, or zipped Shapefile (.shp, .dbf, .prj)' }),
        response: { 202: PolygonUploadAccepted, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
      // The body is the file (a Buffer): its schema documents it; the service reads it.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const format = PolygonUploadService.formatOf(request.headers['content-type']);
      const body = request.body;
      if (!Buffer.isBuffer(body)) throw new ApiError('VALIDATION_ERROR', 'the request has no body; send the file as the body');
      const accepted = await uploads.upload(principalOf(request), format, body);
      reply.headers(PRIVATE_HEADERS).code(202);
      return accepted;
    },
  );

  app.get(
    '/polygons',
    {
      config: { access: { scope: 'uploads:read' } },
      schema: {
        tags: ['uploads'],
        summary: 'List the newest polygon uploads of this account (at most 100)',
        security,
        response: { 200: PolygonUploadList, ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return uploads.list(principalOf(request));
    },
  );

  app.get(
    '/polygons/:polygon_id',
    {
      config: { access: { scope: 'uploads:read' } },
      schema: {
        tags: ['uploads'],
        summary: 'Get a polygon upload: status, feature count, area, error',
        security,
        params: PolygonIdParams,
        response: { 200: PolygonUpload, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return uploads.get(principalOf(request), (request.params as { polygon_id: string }).polygon_id);
    },
  );

  app.delete(
    '/polygons/:polygon_id',
    {
      config: { access: { scope: 'uploads:write' } },
      schema: {
        tags: ['uploads'],
        summary: 'Delete a polygon upload and its files (jobs already submitted on it fail when they run)',
        security,
        params: PolygonIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await uploads.delete(principalOf(request), (request.params as { polygon_id: string }).polygon_id);
      reply.headers(PRIVATE_HEADERS).code(204);
      return null;
    },
  );
}
