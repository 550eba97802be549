/** Event-loop probes for tests that check nothing blocks this process. */

/** Longest pause between the ticks of a 5 ms interval in this process, from now until `stop()`. */
export function tickGaps(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}
