/**
 * The shared backend of the event-stream limit (REDIS_URL): each key's open streams are the
 * members of one Redis sorted set, scored by when their lease ends. Taking a slot is one
 * script (drop expired leases, count, add), so API processes racing for the last slot cannot
 * both get it; this process renews its streams' leases every third of a lease, and a process
 * that dies without giving its slots back loses them when their leases end. Times are Redis's
 * own (TIME), so the API hosts' clocks do not matter.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ApiError } from '../contract/errors.ts';
import type { StreamSlots } from './streamSlots.ts';

/** Seconds a client is told to wait when Redis does not answer (as the shared rate limits do). */
const REDIS_RETRY_SECONDS = 5;

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] the key's set; ARGV: limit, lease ms, member. 1 when taken, 0 when full. */
const ACQUIRE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`;

/** KEYS[1] the key's set; ARGV: lease ms, members… (only those still present are renewed). */
const RENEW = `${NOW_MS}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1`;

export interface RedisStreamSlotsOptions {
  redisUrl: string;
  /** Keys are `<prefix>:<API key id>`; deployments sharing a Redis use different prefixes. */
  prefix: string;
  perKey: number;
  /** How long a slot outlives its last renewal (ms; default 30 s). */
  leaseMs?: number;
}

export class RedisStreamSlots implements StreamSlots {
  readonly perKey: number;
  /** Connected at the first stream: a process that serves none (a worker) holds no connection. */
  private client: Redis | null = null;
  private readonly leaseMs: number;
  private readonly process = randomUUID().slice(0, 8);
  private next = 0;
  /** This process's slots, by Redis key. */
  private readonly held = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: RedisStreamSlotsOptions) {
    this.perKey = opts.perKey;
    this.leaseMs = opts.leaseMs ?? 30_000;
  }

  private get redis(): Redis {
    if (!this.client) {
      // One retry: with Redis down a stream request fails (503) within a reconnect.
      this.client = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: 1 });
      this.client.on('error', () => {});
      this.timer = setInterval(() => void this.renew(), this.leaseMs / 3);
      this.timer.unref();
    }
    return this.client;
  }

  async acquire(keyId: string): Promise<(() => void) | null> {
    const key = `${this.opts.prefix}:${keyId}`;
    const member = `${this.process}:${this.next++}`;
    let taken: unknown;
    try {
      taken = await this.redis.eval(ACQUIRE, 1, key, this.perKey, this.leaseMs, member);
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', 'the shared event-stream limit (Redis) does not answer; retry later', undefined, REDIS_RETRY_SECONDS);
    }
    if (Number(taken) !== 1) return null;
    let mine = this.held.get(key);
    if (!mine) this.held.set(key, (mine = new Set()));
    mine.add(member);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const set = this.held.get(key);
      set?.delete(member);
      if (set?.size === 0) this.held.delete(key);
      // If Redis does not answer now, the lease ends the slot instead.
      this.redis.zrem(key, member).catch(() => {});
    };
  }

  private async renew(): Promise<void> {
    for (const [key, members] of this.held) {
      await this.redis.eval(RENEW, 1, key, this.leaseMs, ...members).catch(() => {});
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const client = this.client;
    if (!client) return;
    for (const [key, members] of this.held) await client.zrem(key, ...members).catch(() => {});
    this.held.clear();
    await client.quit().catch(() => client.disconnect());
  }
}
