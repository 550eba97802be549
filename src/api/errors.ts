/**
 * One error handler: every failure leaves as `{"error": {"code", "message"}}` with a code
 * from contract/errors.ts. A backing service that does not answer (store, object store) is a
 * 503 with Retry-After; other unexpected errors are logged and answered with a generic 500.
 * Messages name the field or header at fault; they never repeat what the client sent.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, HTTP_ERRORS, errorEnvelope, type HttpErrorCode } from '../contract/errors.ts';
import { isStoreUnavailable } from '../store/dialect.ts';

/** Names a client may see quoted back: identifiers, never markup. */
const QUOTABLE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function quotedName(name: unknown): string {
  const text = String(name);
  return QUOTABLE_NAME.test(text) ? `"${text}"` : '(name not shown: it is not a plain identifier)';
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return HTTP_ERRORS.VALIDATION_ERROR.message;
  // instancePath names a property of our schema (or none: the body itself).
  const where = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'body';
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'additionalProperties') return `${where}: unknown field ${quotedName(params.additionalProperty)}`;
  if (first.keyword === 'required') return `${where}: missing required field ${quotedName(params.missingProperty)}`;
  if (first.keyword === 'const') return `${where} must be "${String(params.allowedValue)}"`;
  if (first.keyword === 'enum' || first.keyword === 'anyOf') {
    const allowed = (params.allowedValues as unknown[] | undefined)?.join(', ');
    return `${where} has an invalid value${allowed ? `; allowed: ${allowed}` : ''}`;
  }
  if (first.keyword === 'pattern' && /date/.test(where)) return `${where} must be a date in YYYY-MM-DD form`;
  // Ajv's own messages describe the schema ("must be string", "must NOT have more than 255 characters").
  return `${where} ${first.message ?? 'is invalid'}`;
}

/** Parser messages quote the text around the error, so none is passed on. */
const NOT_JSON = 'request body is not valid JSON';

/** Fastify's body-parser errors → code and message (default: the table's). */
const FASTIFY_CODES: Record<string, { code: HttpErrorCode; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_ERROR', message: 'Content-Length does not match the length of the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'VALIDATION_ERROR', message: 'request body is empty; expected a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'VALIDATION_ERROR', message: NOT_JSON },
};

const BY_STATUS: Record<number, HttpErrorCode> = { 404: 'NOT_FOUND', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/** The ApiError a Fastify or parser error stands for; null when the server is at fault. */
export function toApiError(err: FastifyError): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err.validation) return new ApiError('VALIDATION_ERROR', validationMessage(err));
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (mapped) return new ApiError(mapped.code, mapped.message);
  if (err instanceof SyntaxError || (err.statusCode === 400 && !err.code)) return new ApiError('VALIDATION_ERROR', NOT_JSON);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return new ApiError(BY_STATUS[err.statusCode] ?? 'VALIDATION_ERROR');
  return null;
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
  return reply.status(err.status).send(errorEnvelope(err.code, err.message, err.details));
}

/** Socket errors of a backing service (store or object store) that is down or unreachable. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Retry-After (s) for 503s from a backing service (about one reconnect). */
export const BACKEND_RETRY_SECONDS = 5;

/**
 * True when `err` says a backing service did not answer — down, restarting, overloaded or
 * locked — not a fault in this code: a socket error, or what the store's dialect calls
 * unavailable (src/store/dialect.ts).
 */
export function isBackendUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && SOCKET_CODES.has(code)) || isStoreUnavailable(err);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = toApiError(err);
    if (known) return sendApiError(reply, known);
    if (isBackendUnavailable(err)) {
      // The deployment's trouble, not the client's and not a bug: 503 and a retry hint.
      request.log.warn({ err }, 'a backing service did not answer');
      return sendApiError(reply, new ApiError('SERVICE_UNAVAILABLE', 'a backing service (store or object store) did not answer; retry later', undefined, BACKEND_RETRY_SECONDS));
    }
    request.log.error({ err }, 'unhandled error');
    return sendApiError(reply, new ApiError('INTERNAL'));
  });
  app.setNotFoundHandler(notFound);
}

/** Unknown routes; the path is the client's text, so it is not repeated. */
export function notFound(_request: unknown, reply: FastifyReply): FastifyReply {
  return sendApiError(reply, new ApiError('NOT_FOUND', 'no route matches this method and path'));
}
