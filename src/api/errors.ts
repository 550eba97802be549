/**
 * One error handler: every failure leaves as `{"error": {"code", "message"}}` with a code
 * from contract/errors.ts. Unexpected errors are logged and answered with a generic 500.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, HTTP_ERRORS, errorEnvelope, type HttpErrorCode } from '../contract/errors.ts';

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'body';
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'additionalProperties') return `${where === 'body' ? 'body' : where}: unknown field "${String(params.additionalProperty)}"`;
  if (first.keyword === 'required') return `${where === 'body' ? 'body' : where}: missing required field "${String(params.missingProperty)}"`;
  if (first.keyword === 'const') return `${where} must be "${String(params.allowedValue)}"`;
  if (first.keyword === 'enum' || first.keyword === 'anyOf') {
    const allowed = (params.allowedValues as unknown[] | undefined)?.join(', ');
    return `${where} has an invalid value${allowed ? `; allowed: ${allowed}` : ''}`;
  }
  if (first.keyword === 'pattern' && /date/.test(where)) return `${where} must be a date in YYYY-MM-DD form`;
  return `${where} ${first.message ?? 'is invalid'}`;
}

const FASTIFY_CODES: Record<string, HttpErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_ERROR',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_ERROR',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_ERROR',
};

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ApiError) {
      if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
      return reply.status(err.status).send(errorEnvelope(err.code, err.message, err.details));
    }
    if (err.validation) {
      return reply.status(400).send(errorEnvelope('VALIDATION_ERROR', validationMessage(err)));
    }
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (mapped) {
      const message =
        mapped === 'VALIDATION_ERROR' ? `request body is not valid JSON: ${err.message}` : HTTP_ERRORS[mapped].message;
      return reply.status(HTTP_ERRORS[mapped].status).send(errorEnvelope(mapped, message));
    }
    if (err instanceof SyntaxError || (err.statusCode === 400 && !err.code)) {
      return reply.status(400).send(errorEnvelope('VALIDATION_ERROR', `request body is not valid JSON: ${err.message}`));
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      const code: HttpErrorCode = err.statusCode === 404 ? 'NOT_FOUND' : err.statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR';
      return reply.status(HTTP_ERRORS[code].status).send(errorEnvelope(code, err.message));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorEnvelope('INTERNAL', HTTP_ERRORS.INTERNAL.message));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorEnvelope('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
