/**
 * What the request log may hold. A signed download URL is a credential until it expires
 * (like an S3 presigned URL), so its signature is redacted; headers — Authorization among
 * them — are never logged.
 */
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are credentials: ours (`sig`) and S3's presigned ones. */
const SECRET_PARAMS = /([?&](?:sig|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[REDACTED]');
}

/** Pino serializers for Fastify's request logs. */
export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};

/** The `logger` option of Fastify: false, or the caller's pino options with our serializers. */
export function loggerOptions(logger: boolean | object | undefined): false | object {
  if (!logger) return false;
  const base = logger === true ? {} : (logger as { serializers?: object });
  return { ...base, serializers: { ...(base.serializers ?? {}), ...logSerializers } };
}
