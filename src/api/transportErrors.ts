/**
 * Errors raised before a request reaches a route, answered with the same envelope as every
 * other error:
 *   - the HTTP parser (oversized headers, malformed framing, timeouts): Node's 'clientError',
 *     answered on the raw socket since there is no request object;
 *   - the router (undecodable percent-encoding, a path parameter over maxParamLength):
 *     Fastify's `frameworkErrors`;
 *   - Node's own answers (unknown Expect, missing Host, a server that is closing).
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, HTTP_ERRORS, errorEnvelope, type HttpErrorCode } from '../contract/errors.ts';
import { sendApiError } from './errors.ts';

/** Parser errors → code. Everything not listed is malformed HTTP: 400. */
const CLIENT_ERRORS: Record<string, { code: HttpErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', message: HTTP_ERRORS.HEADERS_TOO_LARGE.message },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: HTTP_ERRORS.REQUEST_TIMEOUT.message },
};

/** Fastify's `clientErrorHandler`: one enveloped response, then the connection is closed. */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = CLIENT_ERRORS[err.code ?? ''] ?? { code: 'VALIDATION_ERROR', message: 'The request is not well-formed HTTP/1.1.' };
  const status = HTTP_ERRORS[code].status;
  const body = JSON.stringify(errorEnvelope(code, message));
  this.log.debug({ code: err.code }, 'malformed request');
  // Like Node's own handler: never write into a response that has already begun.
  const inProgress = (socket as Socket & { _httpMessage?: { _headerSent?: boolean } })._httpMessage?._headerSent === true;
  if (socket.writable && !inProgress) {
    socket.write(
      `HTTP/1.1 ${status} ${statusText(status)}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function statusText(status: number): string {
  return { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status] ?? 'Error';
}

/**
 * Fastify's `frameworkErrors`. Under /api/v1 the caller is authenticated first (`guard`),
 * so a client without a valid key gets 401 here as on every other API path.
 */
export function frameworkErrorHandler(guard: (request: FastifyRequest) => Promise<void>) {
  return async (err: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    try {
      if (request.url.startsWith('/api/v1/')) await guard(request);
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        // Ids are UUIDs: a path segment this long names nothing that exists.
        throw new ApiError('NOT_FOUND', 'no resource at this path (a path segment is longer than 100 characters)');
      }
      if (err.code === 'FST_ERR_BAD_URL') throw new ApiError('VALIDATION_ERROR', 'the URL path is not valid percent-encoded UTF-8');
      throw err;
    } catch (e) {
      if (e instanceof ApiError) {
        sendApiError(reply, e);
        return;
      }
      request.log.error({ err: e }, 'router error');
      sendApiError(reply, new ApiError('INTERNAL'));
    }
  };
}

/**
 * Hooks and server settings for what Node would otherwise answer with an empty body:
 * a closing server (503, and Connection: close on whatever it still answers), an HTTP/1.1
 * request without Host (400), an unknown Expect (417).
 */
export function installTransportGuards(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('Connection', 'close');
      throw new ApiError('SERVICE_UNAVAILABLE', 'the service is shutting down; retry on another instance or later');
    }
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError('VALIDATION_ERROR', 'HTTP/1.1 requests need a Host header');
    }
  });
  // A response still in flight when closing began ends its connection too, so a kept-alive
  // client cannot hold close() until the keep-alive timeout.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('Connection', 'close');
  });
  // Expectations other than 100-continue are ignored (RFC 9110 §10.1.1 allows it) rather
  // than refused with Node's bare 417.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res));
}
