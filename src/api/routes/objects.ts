/**
 * Signed downloads of the local object store (`/objects/<key>?expires&filename&type&sig`).
 * The signature is the credential, like an S3 presigned URL; no API key is needed.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../contract/errors.ts';
import type { ObjectStore } from '../../objects/port.ts';
import { verifyObjectSignature } from '../../objects/signing.ts';

export async function objectRoutes(app: FastifyInstance, opts: { objects: ObjectStore; secret: Buffer }): Promise<void> {
  app.get('/objects/*', { schema: { hide: true } }, async (request, reply) => {
    // The router has already decoded the path once; decoding again would turn `%25` into a URIError.
    const key = (request.params as { '*': string })['*'];
    const check = verifyObjectSignature(opts.secret, key, request.query as Record<string, unknown>);
    if (!check.ok) {
      throw new ApiError('FORBIDDEN', check.reason === 'expired' ? 'this download link has expired; request the result again' : 'invalid download signature');
    }
    const object = await opts.objects.get(key);
    if (!object) throw new ApiError('NOT_FOUND', 'the object no longer exists');
    const filename = check.params.filename.replace(/[^A-Za-z0-9._-]/g, '_');
    reply
      .header('Content-Type', check.params.type)
      .header('Content-Length', String(object.size))
      .header('Content-Disposition', `attachment; filename="${filename}"`)
      .header('Cache-Control', 'private, max-age=60');
    return reply.send(object.body);
  });
}
