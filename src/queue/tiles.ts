/**
 * One job's tile tasks spread over every worker process (scaled out, issue 20 §2;
 * docs/analysis-engine.md). Each tile task is a BullMQ message on `<queue name>-tiles`: the
 * job's own worker (the coordinator) adds them through `forJob(jobId)` — the engine's
 * TileRunner — and every worker process runs them on its own analysis pool through
 * `consume`. A tile's result goes to the object store under its job, keyed by a digest of the
 * call: the message id is the same digest, so dispatching a tile twice is a no-op, and a
 * coordinator that takes over a recovered job finds the tiles already done and dispatches only
 * the missing ones. A message whose worker dies is handed to another by BullMQ's stalled check.
 */
import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import { Queue, QueueEvents, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { TileCall, TileRunner } from '../analysis/port.ts';
import type { ObjectStore } from '../objects/port.ts';
import { reviveError } from '../analysis/engine/revive.ts';
import { toThrownData } from '../threads/task.ts';

export interface TileQueueOptions {
  redisUrl: string;
  /** The queue's name (Redis keys `bull:<name>:…`): the job queue's name + `-tiles`. */
  name: string;
  objects: ObjectStore;
  /** Tiles one job has out at once. */
  fanout: number;
  /** Plans smaller than this stay on the coordinator's own pool. */
  minTiles: number;
  /** A consumer's lock on a running tile (and BullMQ's stalled check): how soon a dead worker's tile runs elsewhere. */
  lockSeconds: number;
  /** Runs of a failing tile before the job fails (default 3). */
  attempts?: number;
  /** How often the coordinator checks on tiles whose events may have been missed (ms; default 5000). */
  checkMs?: number;
}

export interface TileConsumer {
  /** Who runs the tiles (the worker's id): BullMQ records it on each running message (`processedBy`). */
  name?: string;
  /** Tiles run at once by this process (its analysis threads). */
  concurrency: number;
  /** Runs the task on this process's pool; `signal` aborts it. */
  run(call: TileCall, signal: AbortSignal): Promise<unknown>;
  /** False once the job no longer runs (canceled, ended, back to pending): its tiles are not started. */
  isRunning(jobId: string): Promise<boolean>;
}

interface TileMessage {
  jobId: string;
  /** Where the result goes (object store). */
  key: string;
  /** The call, v8-serialised (typed arrays survive), base64. */
  call: string;
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
  since: number;
  message: TileMessage;
  /** Times the message was found gone without a result and added again. */
  readded: number;
}

/** Where a job's tile results are kept in the object store (deleted as one when the job ends). */
export function tilePrefix(jobId: string): string {
  return `tiles/${jobId}/`;
}

/** The tile's object key and message id: a digest of the call under its job. */
export function tileAddress(jobId: string, call: Buffer): { key: string; messageId: string } {
  const digest = createHash('sha256').update(call).digest('hex');
  return { key: `${tilePrefix(jobId)}${digest}.v8`, messageId: `${jobId}.${digest.slice(0, 40)}` };
}

async function readObject(objects: ObjectStore, key: string): Promise<Buffer | null> {
  const got = await objects.get(key);
  if (!got) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of got.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

const SHUTDOWN = 'the worker is shutting down';

/**
 * A tile's failure crosses the queue as its message (BullMQ keeps only a failed reason): the
 * error's class, code and message as JSON behind a marker, so the coordinator throws what the
 * task threw — an ImageryError or JobFailure keeps its code, and so the job its error code.
 */
const TILE_ERROR = 'tile error: ';

function encodeTileError(error: unknown): Error {
  const { name, message, code } = toThrownData(error);
  return new Error(`${TILE_ERROR}${JSON.stringify({ name, message, ...(code === undefined ? {} : { code }) })}`);
}

export function decodeTileError(failedReason: string): Error {
  if (!failedReason.startsWith(TILE_ERROR)) return new Error(failedReason);
  let parsed: { name?: unknown; message?: unknown; code?: unknown };
  try {
    parsed = JSON.parse(failedReason.slice(TILE_ERROR.length)) as typeof parsed;
  } catch {
    return new Error(failedReason);
  }
  return reviveError({
    name: typeof parsed.name === 'string' ? parsed.name : 'Error',
    message: typeof parsed.message === 'string' ? parsed.message : failedReason,
    ...(typeof parsed.code === 'string' ? { code: parsed.code } : {}),
  });
}

export class BullmqTileQueue {
  private readonly connection: { url: string; maxRetriesPerRequest: null };
  private readonly queue: Queue<TileMessage>;
  private events: QueueEvents | null = null;
  private eventsReady: Promise<unknown> | null = null;
  private worker: Worker<TileMessage> | null = null;
  private readonly waiters = new Map<string, Waiter>();
  private checker: NodeJS.Timeout | null = null;
  /** Running tiles of this process by job id (cancel aborts them). */
  private readonly active = new Map<string, Set<AbortController>>();
  private closing = false;

  constructor(private readonly opts: TileQueueOptions) {
    this.connection = { url: opts.redisUrl, maxRetriesPerRequest: null };
    this.queue = new Queue<TileMessage>(opts.name, { connection: this.connection });
    this.queue.on('error', () => {});
  }

  get name(): string {
    return this.opts.name;
  }

  /**
   * The engine's TileRunner for one job, and `discard` to delete the job's tile results once it
   * ended — every one under the job, also those of tiles a former coordinator dispatched.
   */
  forJob(jobId: string): TileRunner & { discard(): Promise<void> } {
    return {
      concurrency: this.opts.fanout,
      minTiles: this.opts.minTiles,
      run: async (call, signal) => {
        const bytes = v8.serialize(call);
        const { key, messageId } = tileAddress(jobId, bytes);
        return this.runTile(messageId, { jobId, key, call: bytes.toString('base64') }, signal);
      },
      discard: () => this.opts.objects.deletePrefix(tilePrefix(jobId)),
    };
  }

  private async runTile(messageId: string, message: TileMessage, signal?: AbortSignal): Promise<unknown> {
    signal?.throwIfAborted();
    // Done already (by this job's former coordinator): not dispatched again.
    const kept = await readObject(this.opts.objects, message.key);
    if (kept) return v8.deserialize(kept);
    signal?.throwIfAborted();
    await this.listen();
    const finished = new Promise<void>((resolve, reject) => {
      this.waiters.set(messageId, { resolve, reject, since: Date.now(), message, readded: 0 });
    });
    finished.catch(() => {}); // settled after an abort won the race below: nobody waits for it any more
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await this.add(messageId, message);
      await Promise.race([finished, aborted]);
      const body = await readObject(this.opts.objects, message.key);
      if (!body) throw new Error('a tile finished without its result');
      return v8.deserialize(body);
    } catch (error) {
      // Aborted (cancel, shutdown, lease lost): a tile still waiting is taken back; one running
      // elsewhere stops on the cancel notice, or finishes and its result waits for the next attempt.
      if (signal?.aborted) await this.queue.remove(messageId).catch(() => {});
      throw error;
    } finally {
      this.waiters.delete(messageId);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  private async add(messageId: string, message: TileMessage): Promise<void> {
    await this.queue.add('tile', message, {
      jobId: messageId,
      attempts: this.opts.attempts ?? 3,
      backoff: { type: 'fixed', delay: 500 },
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  /** Starts listening for finished tiles (once per process) and the check for missed ones. */
  private async listen(): Promise<void> {
    if (!this.events) {
      const events = new QueueEvents(this.opts.name, { connection: this.connection });
      events.on('error', () => {});
      events.on('completed', ({ jobId }) => this.waiters.get(jobId)?.resolve());
      events.on('failed', ({ jobId, failedReason }) => this.waiters.get(jobId)?.reject(decodeTileError(failedReason)));
      this.events = events;
      this.eventsReady = events.waitUntilReady();
      const checkMs = this.opts.checkMs ?? 5000;
      this.checker = setInterval(() => void this.checkMissed(checkMs).catch(() => {}), checkMs);
      this.checker.unref();
    }
    await this.eventsReady;
  }

  /**
   * Events are not stored for a listener that was disconnected: a tile waited for longer than a
   * check is looked up. Gone with its result: done. Gone without one (taken back by a former
   * coordinator's abort, or failed while unheard): added again, at most twice.
   */
  private async checkMissed(checkMs: number): Promise<void> {
    const now = Date.now();
    for (const [messageId, waiter] of [...this.waiters]) {
      if (now - waiter.since < checkMs) continue;
      const state = await this.queue.getJobState(messageId);
      if (state !== 'unknown' || this.waiters.get(messageId) !== waiter) continue;
      if (await this.opts.objects.get(waiter.message.key).then((o) => (o?.body.destroy(), o !== null))) {
        waiter.resolve();
      } else if (waiter.readded >= 2) {
        waiter.reject(new Error('a tile task was lost from the queue'));
      } else {
        waiter.readded++;
        waiter.since = now;
        await this.add(messageId, waiter.message);
      }
    }
  }

  /** Runs tiles of any job on this process (every worker process). */
  consume(consumer: TileConsumer): void {
    if (this.worker) throw new Error('this tile queue is already consuming');
    const lockMs = this.opts.lockSeconds * 1000;
    this.worker = new Worker<TileMessage>(this.opts.name, (msg, token) => this.runMessage(consumer, msg, token), {
      connection: this.connection,
      concurrency: consumer.concurrency,
      ...(consumer.name ? { name: consumer.name } : {}),
      lockDuration: lockMs,
      stalledInterval: lockMs,
      // A tile whose worker died is handed on twice before it fails.
      maxStalledCount: 2,
    });
    this.worker.on('error', () => {});
  }

  private async runMessage(consumer: TileConsumer, msg: Job<TileMessage>, token: string | undefined): Promise<void> {
    const { jobId, key } = msg.data;
    if (this.closing) throw new Error(SHUTDOWN);
    if (!(await consumer.isRunning(jobId))) throw new UnrecoverableError('the job is no longer running');
    const abort = new AbortController();
    const mine = this.active.get(jobId) ?? new Set();
    this.active.set(jobId, mine.add(abort));
    try {
      const call = v8.deserialize(Buffer.from(msg.data.call, 'base64')) as TileCall;
      const result = await consumer.run(call, abort.signal);
      // Not kept for a job that ended meanwhile: its tile results were (or are being) deleted.
      if (!(await consumer.isRunning(jobId))) throw new UnrecoverableError('the job is no longer running');
      await this.opts.objects.put(key, v8.serialize(result), 'application/octet-stream');
    } catch (error) {
      if (error instanceof UnrecoverableError) throw error;
      if (!abort.signal.aborted) throw encodeTileError(error);
      if (abort.signal.reason === SHUTDOWN && token) {
        // Back to the queue for another worker, no attempt counted.
        await msg.moveToWait(token);
        throw new WaitingError();
      }
      throw new UnrecoverableError('the job was canceled');
    } finally {
      mine.delete(abort);
      if (mine.size === 0) this.active.delete(jobId);
    }
  }

  /** The job was canceled: its tiles running here stop (its tiles not yet started are skipped by `isRunning`). */
  abortJob(jobId: string): void {
    for (const abort of this.active.get(jobId) ?? []) abort.abort('the job was canceled');
  }

  /** Shutdown: the tiles running here go back to the queue for other workers; stops listening. */
  async close(): Promise<void> {
    this.closing = true;
    for (const set of this.active.values()) for (const abort of set) abort.abort(SHUTDOWN);
    if (this.checker) clearInterval(this.checker);
    for (const waiter of this.waiters.values()) waiter.reject(new Error(SHUTDOWN));
    await this.worker?.close();
    await this.events?.close();
    await this.queue.close();
  }
}
