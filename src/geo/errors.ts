/**
 * A geometry the service cannot accept or produce. The message is user-facing: callers
 * (jobs/) return it as the `message` of a 400 VALIDATION_ERROR, so it names the offending
 * part and ring (1-based, in the order they appear in the WKT text) and never leaks internals.
 */
export class GeometryError extends Error {
  override readonly name = 'GeometryError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
