import type { Redis } from 'ioredis';
import { BoundedMap } from './bounded-map.js';

/** Fixed-window counters: a Map on one node, Redis across a cluster. */
export interface WindowCounters {
  incr(key: string, windowSeconds: number): Promise<number> | number;
  get(key: string, windowSeconds: number): Promise<number> | number;
}

/** Windows counted at once on one node (keys include client addresses: a flood of them evicts the least recently used). */
export const MAX_WINDOW_COUNTERS = 50_000;

export class MemoryWindowCounters implements WindowCounters {
  /** One count per key and window, gone when its window ends. */
  private readonly counts = new BoundedMap<string, { n: number }>({ maxEntries: MAX_WINDOW_COUNTERS });

  get size(): number {
    return this.counts.size;
  }

  get capacity(): number {
    return this.counts.capacity;
  }

  private slot(key: string, windowSeconds: number, now: number): [string, number] {
    const index = Math.floor(now / 1000 / windowSeconds);
    return [`${key}:${index}`, (index + 1) * windowSeconds * 1000];
  }

  incr(key: string, windowSeconds: number, now = Date.now()): number {
    const [k, endsAt] = this.slot(key, windowSeconds, now);
    const entry = this.counts.get(k, now);
    if (entry) return ++entry.n;
    this.counts.set(k, { n: 1 }, endsAt - now, now);
    return 1;
  }

  get(key: string, windowSeconds: number, now = Date.now()): number {
    return this.counts.get(this.slot(key, windowSeconds, now)[0], now)?.n ?? 0;
  }
}

export class RedisWindowCounters implements WindowCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private slot(key: string, windowSeconds: number): string {
    return `${this.prefix}wc:${key}:${Math.floor(Date.now() / 1000 / windowSeconds)}`;
  }

  async incr(key: string, windowSeconds: number): Promise<number> {
    const k = this.slot(key, windowSeconds);
    const [[, n]] = (await this.redis
      .multi()
      .incr(k)
      .expire(k, windowSeconds + 1)
      .exec()) as [[Error | null, number]];
    return n;
  }

  async get(key: string, windowSeconds: number): Promise<number> {
    return Number((await this.redis.get(this.slot(key, windowSeconds))) ?? 0);
  }
}

/** Counts one hit against `limit` per `windowSeconds`; true while the caller is within the limit. */
export type RateLimiter = (key: string, limit: number, windowSeconds: number) => Promise<boolean>;

/** A rate limiter over fixed-window counters (in memory for one node, in Redis for a cluster). */
export const rateLimiterOver =
  (counters: WindowCounters): RateLimiter =>
  async (key, limit, windowSeconds) =>
    (await counters.incr(`rl:${key}`, windowSeconds)) <= limit;
