/**
 * Waiting for something another connection or process writes after its commit (a worker's
 * progress, its metrics, a webhook sender's record): read it until it holds, within a deadline,
 * never by sleeping a fixed time.
 */

/** `read()` again every 20 ms until `ok` holds of its value, which it returns; past `timeoutMs` it throws naming `what`. */
export async function pollUntil<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s (last: ${JSON.stringify(value)?.slice(0, 500)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
