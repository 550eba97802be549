/** Event-loop probes for tests that check nothing blocks this process. */

export interface IntervalTicks {
  /** How many times the interval has run so far. */
  count(): number;
  /** Resolves once the interval has run `n` times (counting from its start). */
  reached(n: number): Promise<void>;
  /** Stops the interval; how many times it ran. */
  stop(): number;
}

/**
 * Counts the runs of a 5 ms interval in this process, from now until `stop()`. A count, not a
 * time: while a synchronous call blocks the event loop the interval cannot run at all, so
 * "the interval ran while X was pending" tells a free loop from a blocked one whatever the
 * machine's load, where a bound on the longest pause between runs depends on the scheduler.
 */
export function intervalTicks(): IntervalTicks {
  let ticks = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const timer = setInterval(() => {
    ticks++;
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (ticks >= waiters[i]!.n) waiters.splice(i, 1)[0]!.resolve();
    }
  }, 5);
  return {
    count: () => ticks,
    reached: (n) => (ticks >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    stop() {
      clearInterval(timer);
      return ticks;
    },
  };
}
