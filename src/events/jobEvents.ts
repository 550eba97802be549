/**
 * events/: job event streams (Server-Sent Events) and webhooks; may import jobs/, the store
 * and the contract.
 *
 * The job event hub of one API process. Every open stream (GET /jobs/{id}/events) is served
 * from the store's `job_events` log (written by a trigger on every status and progress change,
 * migration 0008), so a job run by a worker in any other process streams the same: one shared
 * poller reads the new events of every watched job in one query per interval, however many
 * clients are connected, and fans them out. Event ids are the log's ids: they increase, so
 * `Last-Event-ID` resumes exactly after the last event a client saw.
 */
import type { Db, JobEventRow, JobRow } from '../store/index.ts';
import { ApiError } from '../contract/errors.ts';
import { TERMINAL_STATUSES } from '../jobs/stateMachine.ts';
import type { JobStatus } from '../contract/enums.ts';
import type { JobEventData } from '../contract/jobEvents.ts';
import { resultPathOf } from '../jobs/views.ts';
import type { StreamSlots } from './streamSlots.ts';


export interface JobEvent {
  id: number;
  event: 'status' | 'progress';
  data: JobEventData;
}

/** Where a stream's events go: the HTTP response (api/routes/jobEvents.ts) or a test. */
export interface EventSink {
  send(event: JobEvent): void;
  heartbeat(): void;
  /** The job ended (after its terminal event) or the hub closes. */
  end(): void;
}

export interface JobEventHubOptions {
  /** How often the shared poller reads new events (ms). */
  pollMs: number;
  /** A heartbeat comment on every stream this often (ms). */
  heartbeatMs: number;
  /** Open streams per API key: this process's count, or the deployment's (Redis). */
  slots: StreamSlots;
  /** Seconds a client over the limit is told to wait (Retry-After). */
  retryAfterSeconds?: number;
  onError?: (e: unknown) => void;
}

/** How a stream starts: the events to send at once, where its cursor is, and whether that is all. */
export interface StreamStart {
  initial: JobEvent[];
  cursor: number;
  ended: boolean;
}

interface Subscriber {
  jobId: string;
  cursor: number;
  sink: EventSink;
  heartbeat: NodeJS.Timeout;
  done: boolean;
}

const isTerminal = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

/** Jobs per read (two bound values each; both stores take far more, this keeps statements small). */
const ID_CHUNK = 500;
/** Rows per read; a poll reads again while a page comes back full. */
const PAGE = 1000;

export class JobEventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private again = false;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly opts: JobEventHubOptions,
  ) {}

  /**
   * Takes one of the key's stream slots, or throws 429 TOO_MANY_STREAMS. The returned function
   * gives it back (once, however often it is called).
   */
  async acquire(keyId: string): Promise<() => void> {
    const release = await this.opts.slots.acquire(keyId);
    if (release) return release;
    const retry = this.opts.retryAfterSeconds ?? 10;
    throw new ApiError(
      'TOO_MANY_STREAMS',
      `at most ${this.opts.slots.perKey} event streams may be open per API key; close one, or retry in ${retry} s`,
      undefined,
      retry,
    );
  }

  /**
   * Where a stream of `job` starts. Without `lastEventId`: the job's latest event (its current
   * status and progress) — a terminal job's final state, which is all its stream sends. With
   * it: nothing at once; the poller replays every later event.
   */
  async start(job: Pick<JobRow, 'id' | 'status'>, lastEventId: number | null): Promise<StreamStart> {
    const latest = await this.db.selectFrom('job_events').selectAll().where('job_id', '=', job.id).orderBy('id', 'desc').limit(1).executeTakeFirst();
    const latestId = latest ? Number(latest.id) : 0;
    if (lastEventId !== null) {
      // An id past this job's log (another job's, or made up) means "seen everything so far".
      // Ended when the client has seen the job's last event and that event is terminal (the
      // latest event, not `job`, read before it: the job may have ended in between).
      const cursor = Math.min(lastEventId, latestId);
      return { initial: [], cursor, ended: cursor >= latestId && isTerminal(latest?.status ?? job.status) };
    }
    // A job older than the log has no event yet: its row stands for one, id 0.
    const row: JobEventRow = latest ?? { id: 0, job_id: job.id, kind: 'status', status: job.status, progress: null, created_at: new Date().toISOString() };
    const terminal = isTerminal(row.status);
    const [event] = await this.toEvents([{ ...row, kind: 'status' }]);
    return { initial: [event!], cursor: latestId, ended: terminal };
  }

  /** Streams `jobId`'s events after `cursor` to `sink` until the job's terminal event; the returned function stops it. */
  subscribe(jobId: string, cursor: number, sink: EventSink): () => void {
    if (this.closed) {
      sink.end();
      return () => {};
    }
    const sub: Subscriber = { jobId, cursor, sink, heartbeat: setInterval(() => sink.heartbeat(), this.opts.heartbeatMs), done: false };
    sub.heartbeat.unref();
    let set = this.subscribers.get(jobId);
    if (!set) this.subscribers.set(jobId, (set = new Set()));
    set.add(sub);
    if (!this.timer) {
      this.timer = setInterval(() => this.wake(), this.opts.pollMs);
      this.timer.unref();
    }
    this.wake(); // a resumed stream gets what it missed now, not one interval later
    return () => this.drop(sub);
  }

  /** Ends every stream (the API is closing). */
  close(): void {
    this.closed = true;
    for (const set of [...this.subscribers.values()]) {
      for (const sub of [...set]) {
        this.drop(sub);
        sub.sink.end();
      }
    }
  }

  private drop(sub: Subscriber): void {
    if (sub.done) return;
    sub.done = true;
    clearInterval(sub.heartbeat);
    const set = this.subscribers.get(sub.jobId);
    set?.delete(sub);
    if (set && set.size === 0) this.subscribers.delete(sub.jobId);
    if (this.subscribers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Runs a poll now, or right after the one running. */
  private wake(): void {
    if (this.closed) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    void this.poll()
      .catch((e) => this.opts.onError?.(e))
      .finally(() => {
        this.polling = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** One read of new events for every watched job (in chunks of jobs), fanned out to their streams. */
  async poll(): Promise<void> {
    const jobIds = [...this.subscribers.keys()];
    for (let i = 0; i < jobIds.length; i += ID_CHUNK) {
      const chunk = jobIds.slice(i, i + ID_CHUNK);
      for (;;) {
        // Each job from its own cursor (the lowest of its streams'), so the read is exactly what is new.
        const after = chunk.map((id) => [id, this.minCursor(id)] as const).filter((c): c is readonly [string, number] => c[1] !== null);
        if (after.length === 0) break;
        const rows = await this.db
          .selectFrom('job_events')
          .selectAll()
          .where((eb) => eb.or(after.map(([id, cursor]) => eb.and([eb('job_id', '=', id), eb('id', '>', cursor)]))))
          .orderBy('id')
          .limit(PAGE)
          .execute();
        if (rows.length === 0) break;
        for (const event of await this.toEvents(rows)) this.deliver(event);
        if (rows.length < PAGE) break; // a full page: the cursors have moved past it; read on
      }
    }
  }

  private minCursor(jobId: string): number | null {
    let min: number | null = null;
    for (const sub of this.subscribers.get(jobId) ?? []) if (min === null || sub.cursor < min) min = sub.cursor;
    return min;
  }

  private deliver(event: JobEvent): void {
    for (const sub of [...(this.subscribers.get(event.data.job_id) ?? [])]) {
      if (event.id <= sub.cursor) continue; // sent already (the stream resumed past it)
      sub.cursor = event.id;
      sub.sink.send(event);
      if (event.event === 'status' && isTerminal(event.data.status)) {
        this.drop(sub);
        sub.sink.end();
      }
    }
  }

  /** Log rows → events; a terminal status carries the job's outcome, read from its row (which no longer changes). */
  private async toEvents(rows: JobEventRow[]): Promise<JobEvent[]> {
    const terminalIds = [...new Set(rows.filter((r) => r.kind === 'status' && isTerminal(r.status)).map((r) => r.job_id))];
    const outcomes = new Map<string, Pick<JobRow, 'id' | 'status' | 'endpoint_id' | 'error_code' | 'error_message'>>();
    if (terminalIds.length) {
      const jobs = await this.db.selectFrom('jobs').select(['id', 'status', 'endpoint_id', 'error_code', 'error_message']).where('id', 'in', terminalIds).execute();
      for (const j of jobs) outcomes.set(j.id, j);
    }
    return rows.map((r) => {
      const data: JobEventData = { job_id: r.job_id, status: r.status as JobStatus, progress: r.progress === null ? null : Number(r.progress), at: r.created_at };
      const outcome = r.kind === 'status' && isTerminal(r.status) ? outcomes.get(r.job_id) : undefined;
      if (outcome) {
        data.error_code = outcome.error_code;
        data.error_message = outcome.error_message;
        data.result_path = resultPathOf(outcome);
      }
      return { id: Number(r.id), event: r.kind === 'progress' ? 'progress' : 'status', data };
    });
  }
}

/** One event in the text/event-stream format. */
export function formatEvent(event: JobEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export const HEARTBEAT_COMMENT = ': heartbeat\n\n';
