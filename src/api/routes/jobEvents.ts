/**
 * Job events and cancel (issue 21 §3): POST /jobs/{id}/cancel and the Server-Sent Events
 * stream GET /jobs/{id}/events. The stream's events come from the process's JobEventHub
 * (src/events/jobEvents.ts), which reads the store, so a job run anywhere streams alike.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ApiError } from '../../contract/errors.ts';
import { errorResponses, JobIdParams, JobStatusResponse } from '../../contract/schemas.ts';
import type { JobService } from '../../jobs/service.ts';
import { HEARTBEAT_COMMENT, formatEvent, type JobEventHub } from '../../events/jobEvents.ts';
import { principalOf } from '../auth.ts';

const security = [{ bearerAuth: [] }];
const PRIVATE_HEADERS = {
  'Cache-Control': 'private, no-store, no-cache, must-revalidate',
  Vary: 'Authorization',
};

/** A stream whose client stops reading is dropped once this much is waiting to be sent. */
const MAX_BUFFERED_BYTES = 1 << 20;

const STREAM_DESCRIPTION = [
  'Server-Sent Events (text/event-stream). Events: `status` (the job changed status) and `progress` (its progress changed);',
  'each has an `id:` that increases and `data:` JSON {job_id, status, progress, at} — a terminal `status` event adds',
  'error_code, error_message and result_path. The stream opens with the job\'s current state (a `status` event),',
  'sends a `: heartbeat` comment every SARWATCH_EVENTS_HEARTBEAT_SECONDS (15 s), and ends after the terminal event;',
  'a terminal job sends its final state and ends. Reconnect with `Last-Event-ID`: every later event, none repeated.',
].join(' ');

/** `Last-Event-ID`: absent (null), or an event id of this API (a non-negative integer). */
function lastEventIdOf(headers: Record<string, unknown>): number | null {
  const raw = headers['last-event-id'];
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw.trim())) {
    throw new ApiError('VALIDATION_ERROR', 'Last-Event-ID must be the id of an event this stream sent (a non-negative integer)');
  }
  return Number(raw.trim());
}

export async function jobEventRoutes(app: FastifyInstance, opts: { jobs: JobService; hub: JobEventHub }): Promise<void> {
  const { jobs, hub } = opts;

  app.post(
    '/jobs/:job_id/cancel',
    {
      // jobs:write is checked by the service before the job is looked up (the route takes no endpoint).
      schema: {
        tags: ['jobs'],
        summary: 'Cancel a pending or processing job: it fails with CANCELED, uncharged; its worker stops within 2 s',
        description:
          'Idempotent: a job already canceled answers 200 with itself. A job that already completed or failed otherwise is 409 JOB_NOT_CANCELABLE, with its status and error_code in error.details.',
        security,
        params: JobIdParams,
        response: { 200: JobStatusResponse, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      return jobs.cancel(principalOf(request), (request.params as { job_id: string }).job_id);
    },
  );

  app.get(
    '/jobs/:job_id/events',
    {
      config: { access: { scope: 'jobs:read' } },
      schema: {
        tags: ['jobs'],
        summary: "Stream a job's status and progress changes (Server-Sent Events)",
        description: STREAM_DESCRIPTION,
        security,
        params: JobIdParams,
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ description: 'Resume after this event id (sent by EventSource on reconnect)' })),
        }),
        response: {
          200: { description: STREAM_DESCRIPTION, content: { 'text/event-stream': { schema: Type.String() } } },
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const lastEventId = lastEventIdOf(request.headers);
      const job = await jobs.ownJobRow(principal, (request.params as { job_id: string }).job_id);
      const release = await hub.acquire(principal.keyId);
      let start;
      try {
        start = await hub.start(job, lastEventId);
      } catch (e) {
        release();
        throw e;
      }

      // From here the response is ours: a stream, not a Fastify reply.
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...PRIVATE_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        Connection: 'keep-alive',
        // Proxies (nginx) must pass events on as they come.
        'X-Accel-Buffering': 'no',
      });
      let unsubscribe = () => {};
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        unsubscribe();
        release();
        if (!res.writableEnded) res.end();
      };
      const write = (text: string) => {
        if (finished) return;
        res.write(text);
        if (res.writableLength > MAX_BUFFERED_BYTES) finish();
      };
      res.on('close', finish);
      for (const event of start.initial) write(formatEvent(event));
      if (start.ended) return finish();
      unsubscribe = hub.subscribe(job.id, start.cursor, {
        send: (event) => write(formatEvent(event)),
        heartbeat: () => write(HEARTBEAT_COMMENT),
        end: finish,
      });
      // The client may have gone while the stream was being set up.
      if (res.destroyed) finish();
    },
  );
}
