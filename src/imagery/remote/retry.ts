/**
 * Retries with exponential backoff and full jitter for calls to remote archives (STAC search,
 * token endpoints, range reads). Public archives throttle (429) and fail transiently (5xx,
 * resets, timeouts); a job should ride over a short outage, and fail with a clear code after
 * the budget. Time and randomness are injectable so tests never sleep.
 */

export interface RetryPolicy {
  /** Attempts in all (first try included). Default 5. */
  attempts?: number;
  /** Delay before the first retry, ms. Default 500. */
  baseDelayMs?: number;
  /** Upper bound of one delay, ms. Default 20,000. */
  maxDelayMs?: number;
  /** Uniform [0, 1). Default Math.random. */
  random?: () => number;
  /** Waits `ms`. Default setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Thrown by an attempt that may succeed when tried again; `retryAfterMs` from a Retry-After header. */
export class TransientError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'http' | 'network',
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'TransientError';
  }
}

/** HTTP statuses worth another try: throttling and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status <= 599);
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

const realSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Delay before retry number `retry` (1-based): full jitter over an exponential cap. */
export function backoffDelay(retry: number, policy: RetryPolicy = {}): number {
  const base = policy.baseDelayMs ?? 500;
  const cap = Math.min(policy.maxDelayMs ?? 20_000, base * 2 ** (retry - 1));
  return Math.floor((policy.random ?? Math.random)() * cap);
}

/**
 * Runs `attempt` until it succeeds, throws something other than a TransientError, or the
 * attempts are spent (then the last TransientError is thrown). A Retry-After longer than
 * the jittered delay is honoured, up to maxDelayMs.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, policy: RetryPolicy = {}, signal?: AbortSignal): Promise<T> {
  const attempts = Math.max(1, policy.attempts ?? 5);
  const sleep = policy.sleep ?? realSleep;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (!(e instanceof TransientError) || n >= attempts || signal?.aborted) throw e;
      const jittered = backoffDelay(n, policy);
      const wait = e.retryAfterMs !== undefined ? Math.min(policy.maxDelayMs ?? 20_000, Math.max(jittered, e.retryAfterMs)) : jittered;
      await sleep(wait, signal);
    }
  }
}

/**
 * fetch that turns timeouts, network failures and retryable statuses into TransientError
 * (other statuses are returned for the caller to judge). Each attempt has its own timeout.
 */
export async function fetchTransient(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Response> {
  let res: Response;
  const what = `${init.method ?? 'GET'} ${url.replace(/\?.*$/, '')}`;
  try {
    res = await fetchImpl(url, { ...init, signal: init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const err = e as Error;
    if (init.signal?.aborted) throw e;
    if (err.name === 'TimeoutError' || err.name === 'AbortError') throw new TransientError(`${what}: no answer within ${timeoutMs} ms`, 'timeout');
    throw new TransientError(`${what}: ${err.message}`, 'network');
  }
  if (isRetryableStatus(res.status)) {
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
    await res.body?.cancel().catch(() => {});
    throw new TransientError(`${what} answered ${res.status}`, 'http', res.status, retryAfter);
  }
  return res;
}
