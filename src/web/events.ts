/**
 * A job's live status from its event stream (GET /api/v1/jobs/{id}/events, Server-Sent
 * Events). Read with fetch, not EventSource: EventSource cannot send the Authorization
 * header, and the key must never go into a URL. Parsed by eventsource-parser.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { api } from './api.ts';
import type { JobStatus } from './types.ts';

export interface JobEvent {
  event: 'status' | 'progress';
  job_id: string;
  status: JobStatus;
  progress: number | null;
}

const TERMINAL = new Set<string>(['completed', 'failed']);

/**
 * Calls `onEvent` for each status and progress event until the stream ends; resolves true when
 * it ended after the job's terminal status (the stream's normal end), false when it was cut
 * short. Rejects when the stream cannot be opened (an ApiError: 429 TOO_MANY_STREAMS, …) or
 * breaks, and when `signal` aborts.
 */
export async function followJob(jobId: string, onEvent: (e: JobEvent) => void, signal: AbortSignal): Promise<boolean> {
  const res = await api.jobEvents(jobId, signal);
  if (!res.body) return false;
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  let terminal = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return terminal;
    if (value.event !== 'status' && value.event !== 'progress') continue;
    let data: { job_id?: unknown; status?: unknown; progress?: unknown };
    try {
      data = JSON.parse(value.data) as typeof data;
    } catch {
      continue;
    }
    if (typeof data.status !== 'string') continue;
    if (value.event === 'status' && TERMINAL.has(data.status)) terminal = true;
    onEvent({ event: value.event, job_id: String(data.job_id), status: data.status as JobStatus, progress: typeof data.progress === 'number' ? data.progress : null });
  }
}
