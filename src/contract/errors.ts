/**
 * The one table of error codes. Every HTTP error and every job failure uses a code from
 * here, so the API, the worker, the SDK and the docs cannot drift apart.
 */

export const HTTP_ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'The request is invalid.' },
  INVALID_SCENE: { status: 400, message: 'The scene_id is not a Sentinel-1 GRD product.' },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid Authorization header.' },
  INSUFFICIENT_CREDITS: { status: 402, message: 'The credit balance does not cover the estimated cost.' },
  FORBIDDEN: { status: 403, message: 'The API key lacks the permission for this operation.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
  NOT_READY: { status: 409, message: 'The resource is not ready.' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'This Idempotency-Key was already used for a different request.' },
  GONE: { status: 410, message: 'The result is no longer available: the retention period has elapsed.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body exceeds the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Request bodies must be JSON with Content-Type: application/json.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers exceed the size limit.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests; retry after the time in Retry-After.' },
  CONCURRENT_JOB_LIMIT: { status: 429, message: 'Too many jobs are pending or processing for this account.' },
  INTERNAL: { status: 500, message: 'An internal error occurred.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not ready to take requests; retry later.' },
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

/**
 * Codes a failed job can carry in `error_code`. Client-class failures carry a specific
 * message; server-class ones (`serverClass: true`) always carry GENERIC_FAILURE_MESSAGE so
 * that internals never leak into job output.
 */
export const JOB_FAILURES = {
  VALIDATION_ERROR: { serverClass: false },
  SCENE_NOT_FOUND: { serverClass: false },
  NO_SCENE_FOUND: { serverClass: false },
  NO_VALID_DATA: { serverClass: false },
  NOT_IMPLEMENTED: { serverClass: false },
  IMAGERY_UNAVAILABLE: { serverClass: false },
  JOB_INTERRUPTED: { serverClass: true },
  PROCESSING_ERROR: { serverClass: true },
  STORAGE_ERROR: { serverClass: true },
  CATALOG_UNAVAILABLE: { serverClass: true },
} as const;

export type JobFailureCode = keyof typeof JOB_FAILURES;

export const GENERIC_FAILURE_MESSAGE = 'The job failed because of an internal error. It was not charged; please submit it again.';

export function isJobFailureCode(code: string): code is JobFailureCode {
  return Object.prototype.hasOwnProperty.call(JOB_FAILURES, code);
}

/** An error that maps to one HTTP response with the error envelope. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: HttpErrorCode,
    message?: string,
    readonly details?: unknown,
    /** Seconds, sent as Retry-After (429). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message ?? HTTP_ERRORS[code].message);
    this.name = 'ApiError';
    this.status = HTTP_ERRORS[code].status;
  }
}

/** A job-time failure: the runner turns it into `failed` with this code and message. */
export class JobFailure extends Error {
  /** `cause`: what went wrong underneath (never shown in job output; the CLI names it). */
  constructor(readonly code: JobFailureCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JobFailure';
  }
}

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: unknown };
}

export function errorEnvelope(code: string, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
