/**
 * /api/v1/tifs: image uploads (issue 14), as /api/v1/polygons. Its own encapsulated
 * context: the body of the image media types is handed to the service as the request
 * stream (written to a file as it arrives, 413 past SARWATCH_MAX_TIF_UPLOAD_BYTES); any other
 * Content-Type is 415 before the body is read. Scopes are checked by the /api/v1 onRequest
 * hook, before the body (403 before 400/413).
 */
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import Type from 'typebox';
import { ApiError } from '../../contract/errors.ts';
import { errorResponses, TifIdParams, TifUpload, TifUploadAccepted, TifUploadList } from '../../contract/schemas.ts';
import { IMAGE_MEDIA_TYPES } from '../../uploads/image.ts';
import { TifUploadService } from '../../uploads/tifService.ts';
import { principalOf } from '../auth.ts';

const security = [{ bearerAuth: [] }];
const PRIVATE_HEADERS = {
  'Cache-Control': 'private, no-store, no-cache, must-revalidate',
  Vary: 'Authorization',
};
const MEDIA_TYPES = Object.keys(IMAGE_MEDIA_TYPES);

export async function tifRoutes(app: FastifyInstance, opts: { tifs: TifUploadService }): Promise<void> {
  const { tifs } = opts;
  app.removeAllContentTypeParsers();
  // The stream itself: the service reads it to a file.
  app.addContentTypeParser(MEDIA_TYPES, (_request, payload, done) => done(null, payload));
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `image uploads take Content-Type ${MEDIA_TYPES.join(', ')}`), undefined);
  });

  app.post(
    '/tifs',
    {
      config: { access: { scope: 'uploads:write' } },
      schema: {
        tags: ['uploads'],
        summary: 'Upload an image to analyse (GeoTIFF of calibrated σ0, or a zipped Sentinel-1 GRD SAFE product); validated asynchronously',
        description:
          'The body is the file itself: Content-Type image/tiff (a GeoTIFF of calibrated σ0, linear, one band per polarisation named e.g. "Sigma0_VV", georeferenced by a CRS or GCPs) or application/zip (a zipped SAFE product with its measurement TIFFs stored). Streamed to the object store; size limit SARWATCH_MAX_TIF_UPLOAD_BYTES (413).',
        security,
        consumes: MEDIA_TYPES,
        body: Type.String({ format: 'binary', description: 'The file: a σ0 GeoTIFF or a zipped SAFE product' }),
        response: { 202: TifUploadAccepted, ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
      // The body is the file (a stream): its schema documents it; the service reads it.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const kind = TifUploadService.kindOf(request.headers['content-type']);
      const body = request.body as Readable | undefined;
      if (!body || typeof (body as Readable).pipe !== 'function') throw new ApiError('VALIDATION_ERROR', 'the request has no body; send the file as the body');
      const length = request.headers['content-length'];
      const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
      let accepted;
      try {
        accepted = await tifs.upload(principalOf(request), kind, body, declared);
      } catch (e) {
        // The client may still be sending a body we did not read: this connection serves no more requests.
        reply.header('Connection', 'close');
        throw e;
      }
      reply.headers(PRIVATE_HEADERS).code(202);
      return accepted;
    },
  );

  app.get(
    '/tifs',
    {
      config: { access: { scope: 'uploads:read' } },
      schema: {
        tags: ['uploads'],
        summary: 'List the newest image uploads of this account (at most 100)',
        security,
        response: { 200: TifUploadList, ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return tifs.list(principalOf(request));
    },
  );

  app.get(
    '/tifs/:tif_id',
    {
      config: { access: { scope: 'uploads:read' } },
      schema: {
        tags: ['uploads'],
        summary: 'Get an image upload: status, kind, polarisations, footprint, error',
        security,
        params: TifIdParams,
        response: { 200: TifUpload, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return tifs.get(principalOf(request), (request.params as { tif_id: string }).tif_id);
    },
  );

  app.delete(
    '/tifs/:tif_id',
    {
      config: { access: { scope: 'uploads:write' } },
      schema: {
        tags: ['uploads'],
        summary: 'Delete an image upload and its file (jobs already submitted on it fail when they run)',
        security,
        params: TifIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await tifs.delete(principalOf(request), (request.params as { tif_id: string }).tif_id);
      reply.headers(PRIVATE_HEADERS).code(204);
      return null;
    },
  );
}
