// What the worker and shutdown write their log lines to (runtime.ts hands them Fastify's pino, or a quiet one); imports nothing.
export interface Logger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
