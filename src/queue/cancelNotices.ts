/**
 * Cancel notices: the API's word to the workers that it just canceled a job, so a worker
 * running it aborts at once instead of at its next store check (src/worker/jobWatch.ts,
 * which stays the guarantee: a notice may be lost, the store's state may not). One backend
 * per file: in-process here (the embedded service, whose API and worker share the process),
 * Redis pub/sub in redisCancelNotices.ts (scaled out).
 */
import { EventEmitter } from 'node:events';

export interface CancelNotices {
  /** Tell every worker that `jobId` was canceled (after the cancel committed). Never throws. */
  publish(jobId: string): Promise<void>;
  /** Calls `onCancel` for each notice from now on; the returned function stops it. */
  subscribe(onCancel: (jobId: string) => void): () => void;
  close(): Promise<void>;
}

export class MemoryCancelNotices implements CancelNotices {
  private readonly emitter = new EventEmitter();

  async publish(jobId: string): Promise<void> {
    this.emitter.emit('cancel', jobId);
  }

  subscribe(onCancel: (jobId: string) => void): () => void {
    this.emitter.on('cancel', onCancel);
    return () => this.emitter.off('cancel', onCancel);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
