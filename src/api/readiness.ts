/**
 * Readiness (`/readyz`): a list of named probes, each a cheap check of one dependency the
 * service needs to do work. All pass → 200; any fails or hangs → 503 SERVICE_UNAVAILABLE
 * naming the failed ones. The composition root picks the probes (src/runtime.ts,
 * src/probes.ts): store and object store always, the queue's Redis with REDIS_URL, the
 * worker in a process that runs one (not `sarwatch api`). `/healthz` stays
 * a liveness check.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ApiError } from '../contract/errors.ts';
import { ErrorResponse } from '../contract/schemas.ts';
import { sendApiError } from './errors.ts';

export interface ReadinessProbe {
  name: string;
  /** Resolves when the dependency works; rejects (or never settles) when it does not. */
  check(): Promise<void>;
}

export type ProbeResults = Record<string, 'ok' | 'failed'>;

/** A probe that has not answered after this long counts as failed. */
const PROBE_TIMEOUT_MS = 2_000;

export async function runProbes(
  probes: readonly ReadinessProbe[],
  onFailure: (name: string, err: unknown) => void,
): Promise<{ ready: boolean; checks: ProbeResults }> {
  const outcomes = await Promise.all(
    probes.map(async (probe) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          probe.check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
          }),
        ]);
        return [probe.name, 'ok'] as const;
      } catch (e) {
        onFailure(probe.name, e);
        return [probe.name, 'failed'] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: outcomes.every(([, v]) => v === 'ok'), checks: Object.fromEntries(outcomes) };
}

const ReadyResponse = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Record(Type.String(), Type.Literal('ok'), { description: 'Each probe by name' }),
});

export function readinessRoute(app: FastifyInstance, probes: readonly ReadinessProbe[]): void {
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['service'],
        summary: 'Readiness: 200 when the store, the object store, the queue (Redis, scaled out) and this process\'s worker (if it runs one) work; 503 SERVICE_UNAVAILABLE naming the failed checks',
        response: { 200: ReadyResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { ready, checks } = await runProbes(probes, (name, err) =>
        request.log.warn({ probe: name, err: err instanceof Error ? err.message : String(err) }, 'readiness probe failed'),
      );
      if (ready) return { status: 'ready' as const, checks };
      const failed = Object.keys(checks).filter((k) => checks[k] !== 'ok');
      return sendApiError(reply, new ApiError('SERVICE_UNAVAILABLE', `not ready: ${failed.join(', ')} failed`, { checks }));
    },
  );
}
