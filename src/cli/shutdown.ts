/**
 * `sarwatch serve`, `api` and `worker` stop on SIGTERM or SIGINT through the service's
 * close(): running analyses are aborted and their jobs requeued (those still running after
 * SARWATCH_SHUTDOWN_GRACE_SECONDS are requeued regardless), then the analysis pool and the
 * store close.
 * A second signal while closing exits at once; the next start recovers what was running.
 */
import type { Logger } from '../logger.ts';

export type ShutdownSignal = 'SIGTERM' | 'SIGINT';

export interface ShutdownOptions {
  log: Logger;
  exit: (code: number) => void;
  /** Where the signals come from: the process, or a stand-in in tests. */
  signals?: { on(signal: ShutdownSignal, listener: () => void): unknown };
}

export function closeOnSignals(close: () => Promise<void>, opts: ShutdownOptions): void {
  let closing = false;
  const stop = (signal: ShutdownSignal) => {
    if (closing) {
      opts.log.error({ signal }, 'second signal while shutting down: exiting now');
      opts.exit(1);
      return;
    }
    closing = true;
    opts.log.info({ signal }, 'shutting down');
    close().then(
      () => {
        opts.log.info({ signal }, 'stopped');
        opts.exit(0);
      },
      (e: unknown) => {
        opts.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'shutdown failed');
        opts.exit(1);
      },
    );
  };
  const signals = opts.signals ?? process;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) signals.on(signal, () => stop(signal));
}
