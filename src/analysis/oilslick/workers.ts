/**
 * A small pool of worker threads for detectSlicksInTile. The main thread reads and
 * calibrates tile n+1 (and rasterises its land mask) while a worker finds the dark spots of
 * tile n; on two cores that overlaps the two halves of the work.
 *
 * Workers run our TypeScript sources through tsx's loader, registered inside the worker (a
 * loader registered in the main thread does not reach workers in Node 20). When a worker
 * cannot start, the pool reports it and the caller runs tiles in its own thread.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SlickTileInput, TileRegions } from './detect.ts';
import type { OilSlickParams } from './params.ts';
import type { TileReply, TileRequest } from './tileWorker.ts';

const ENTRY = new URL('./tileWorker.ts', import.meta.url);

/** file: URL of tsx's ESM register API, found through its package.json exports. */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import?: { default?: string } | string }> };
  const entry = pkg.exports['./esm/api']?.import;
  const rel = typeof entry === 'string' ? entry : entry?.default;
  if (!rel) throw new Error('tsx does not export ./esm/api');
  return pathToFileURL(path.join(path.dirname(pkgPath), rel)).href;
}

const BOOTSTRAP = `
const { workerData, parentPort } = require('node:worker_threads');
(workerData.tsx ? import(workerData.tsx).then((m) => m.register()) : Promise.resolve())
  .then(() => import(workerData.entry))
  .catch((e) => parentPort.postMessage({ fatal: String((e && e.stack) || e) }));
`;

interface Slot {
  worker: Worker;
  busy: boolean;
}

export class TileWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, { resolve: (r: TileRegions) => void; reject: (e: Error) => void; slot: Slot }>();
  private readonly waiting: Array<() => void> = [];
  private nextId = 1;
  private failure: Error | null = null;

  private constructor() {}

  /** Start `size` workers; resolves when all are ready, or null when they cannot start. */
  static async start(size: number): Promise<TileWorkerPool | null> {
    const pool = new TileWorkerPool();
    try {
      const tsx = ENTRY.pathname.endsWith('.ts') ? tsxApiUrl() : null;
      await Promise.all(Array.from({ length: size }, () => pool.spawn(tsx)));
      return pool;
    } catch {
      await pool.close();
      return null;
    }
  }

  private spawn(tsx: string | null): Promise<void> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { tsx, entry: ENTRY.href } });
      const slot: Slot = { worker, busy: false };
      this.slots.push(slot);
      let ready = false;
      worker.on('message', (message: TileReply | { ready: true } | { fatal: string }) => {
        if ('ready' in message) {
          ready = true;
          resolve();
          return;
        }
        if ('fatal' in message) {
          this.fail(new Error(`oil-slick tile worker failed to start: ${message.fatal}`));
          reject(this.failure!);
          return;
        }
        const job = this.pending.get(message.id);
        if (!job) return;
        this.pending.delete(message.id);
        slot.busy = false;
        this.waiting.shift()?.();
        if ('error' in message) job.reject(new Error(message.error));
        else job.resolve(message.result);
      });
      worker.on('error', (error) => {
        this.fail(error);
        if (!ready) reject(error);
      });
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
    for (const wake of this.waiting.splice(0)) wake();
  }

  get size(): number {
    return this.slots.length;
  }

  /** Run one tile on the next free worker (waits for one). The input arrays are transferred. */
  async run(input: SlickTileInput, params: OilSlickParams): Promise<TileRegions> {
    let slot = this.slots.find((s) => !s.busy);
    while (!slot) {
      if (this.failure) throw this.failure;
      await new Promise<void>((wake) => this.waiting.push(wake));
      slot = this.slots.find((s) => !s.busy);
    }
    if (this.failure) throw this.failure;
    slot.busy = true;
    const id = this.nextId++;
    const request: TileRequest = { id, input, params };
    const transfer = [input.sigma0VV.buffer, input.valid.buffer, ...(input.land ? [input.land.buffer] : [])] as ArrayBuffer[];
    const target = slot;
    return new Promise<TileRegions>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot: target });
      target.worker.postMessage(request, [...new Set(transfer)]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
