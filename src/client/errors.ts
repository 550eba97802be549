/** One error class per API error code, so callers can `catch (e) { if (e instanceof GoneError) … }`. */
import type { HttpErrorCode } from '../contract/errors.ts';

export class SarwatchError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Seconds from Retry-After, when the server sent it. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
export class ValidationError extends SarwatchError {}
export class InvalidSceneError extends SarwatchError {}
export class UnauthorizedError extends SarwatchError {}
export class InsufficientCreditsError extends SarwatchError {}
export class ForbiddenError extends SarwatchError {}
export class NotFoundError extends SarwatchError {}
export class NotReadyError extends SarwatchError {}
export class IdempotencyKeyReusedError extends SarwatchError {}
/** POST /jobs/{id}/cancel on a job that already completed or failed (`details.status`, `details.error_code`). */
export class JobNotCancelableError extends SarwatchError {}
export class GoneError extends SarwatchError {}
export class PayloadTooLargeError extends SarwatchError {}
export class UnsupportedMediaTypeError extends SarwatchError {}
export class RateLimitedError extends SarwatchError {}
export class ConcurrentJobLimitError extends SarwatchError {}
export class TooManyStreamsError extends SarwatchError {}
export class RequestTimeoutError extends SarwatchError {}
export class HeadersTooLargeError extends SarwatchError {}
export class InternalError extends SarwatchError {}
export class ServiceUnavailableError extends SarwatchError {}
/** A job that ended `failed`, raised by `wait` when asked to. */
export class JobFailedError extends SarwatchError {}
/** `waitForPolygonUpload`: the upload failed validation (the message says why). */
export class PolygonUploadFailedError extends SarwatchError {}
/** `wait` gave up before the job ended. */
export class WaitTimeoutError extends SarwatchError {}

// Typed by the contract's table, so a new error code cannot be left without its class.
const BY_CODE: Record<HttpErrorCode, typeof SarwatchError> = {
  VALIDATION_ERROR: ValidationError,
  INVALID_SCENE: InvalidSceneError,
  UNAUTHORIZED: UnauthorizedError,
  INSUFFICIENT_CREDITS: InsufficientCreditsError,
  FORBIDDEN: ForbiddenError,
  NOT_FOUND: NotFoundError,
  NOT_READY: NotReadyError,
  IDEMPOTENCY_KEY_REUSED: IdempotencyKeyReusedError,
  JOB_NOT_CANCELABLE: JobNotCancelableError,
  GONE: GoneError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  RATE_LIMITED: RateLimitedError,
  CONCURRENT_JOB_LIMIT: ConcurrentJobLimitError,
  TOO_MANY_STREAMS: TooManyStreamsError,
  REQUEST_TIMEOUT: RequestTimeoutError,
  HEADERS_TOO_LARGE: HeadersTooLargeError,
  INTERNAL: InternalError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
};

export function errorFromResponse(status: number, body: unknown, retryAfter: string | null): SarwatchError {
  const err = (body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
  const code = err?.code ?? `HTTP_${status}`;
  const Cls = (BY_CODE as Record<string, typeof SarwatchError>)[code] ?? SarwatchError;
  const seconds = retryAfter !== null && retryAfter !== '' ? Number(retryAfter) : undefined;
  return new Cls(status, code, err?.message ?? `HTTP ${status}`, err?.details, Number.isFinite(seconds) ? seconds : undefined);
}
