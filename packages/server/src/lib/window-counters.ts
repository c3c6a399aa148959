import type { Redis } from 'ioredis';
import { BoundedMap } from './bounded-map.js';

/**
 * Fixed-window counters: a Map on one node, Redis across a cluster. A window's count stays readable through the
 * window after it (the sliding rate limiter weighs it).
 */
export interface WindowCounters {
  /** Counts a hit in the window `now` (by default the present) falls in; that window's count, the hit included. */
  incr(key: string, windowSeconds: number, now?: number): Promise<number> | number;
  /** Counts a hit in the window `now` falls in: that window's count (the hit included) and the previous window's. */
  hit(key: string, windowSeconds: number, now: number): Promise<[number, number]> | [number, number];
  /** The counts of the window `now` falls in and of the previous window, nothing counted. */
  counts(key: string, windowSeconds: number, now: number): Promise<[number, number]> | [number, number];
}

/** Windows counted at once on one node (keys include client addresses: a flood of them evicts the least recently used). */
export const MAX_WINDOW_COUNTERS = 50_000;

export class MemoryWindowCounters implements WindowCounters {
  /** One count per key and window, gone a window after its own ends (it is the next one's previous). */
  private readonly byWindow = new BoundedMap<string, { n: number }>({ maxEntries: MAX_WINDOW_COUNTERS });

  get size(): number {
    return this.byWindow.size;
  }

  get capacity(): number {
    return this.byWindow.capacity;
  }

  private slot(key: string, windowSeconds: number, now: number): [string, number] {
    const index = Math.floor(now / 1000 / windowSeconds);
    return [`${key}:${index}`, (index + 1) * windowSeconds * 1000];
  }

  incr(key: string, windowSeconds: number, now = Date.now()): number {
    const [k, endsAt] = this.slot(key, windowSeconds, now);
    const entry = this.byWindow.get(k, now);
    if (entry) return ++entry.n;
    // Kept one window past its end: the next window reads it as its previous one.
    this.byWindow.set(k, { n: 1 }, endsAt - now + windowSeconds * 1000, now);
    return 1;
  }

  get(key: string, windowSeconds: number, now = Date.now()): number {
    return this.byWindow.get(this.slot(key, windowSeconds, now)[0], now)?.n ?? 0;
  }

  hit(key: string, windowSeconds: number, now: number): [number, number] {
    return [this.incr(key, windowSeconds, now), this.previous(key, windowSeconds, now)];
  }

  counts(key: string, windowSeconds: number, now: number): [number, number] {
    return [this.get(key, windowSeconds, now), this.previous(key, windowSeconds, now)];
  }

  /** The count of the window before the one `now` falls in (read at `now`: expired entries do not count). */
  private previous(key: string, windowSeconds: number, now: number): number {
    return this.byWindow.get(this.slot(key, windowSeconds, now - windowSeconds * 1000)[0], now)?.n ?? 0;
  }
}

export class RedisWindowCounters implements WindowCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private slot(key: string, windowSeconds: number, now = Date.now()): string {
    return `${this.prefix}wc:${key}:${Math.floor(now / 1000 / windowSeconds)}`;
  }

  async incr(key: string, windowSeconds: number, now = Date.now()): Promise<number> {
    const k = this.slot(key, windowSeconds, now);
    const [[, n]] = (await this.redis
      .multi()
      .incr(k)
      .expire(k, 2 * windowSeconds + 1)
      .exec()) as [[Error | null, number]];
    return n;
  }

  /** The keys of the window `now` falls in and of the one before it. */
  private slots(key: string, windowSeconds: number, now: number): [string, string] {
    return [this.slot(key, windowSeconds, now), this.slot(key, windowSeconds, now - windowSeconds * 1000)];
  }

  async hit(key: string, windowSeconds: number, now: number): Promise<[number, number]> {
    const [k, before] = this.slots(key, windowSeconds, now);
    const [[, n], , [, previous]] = (await this.redis
      .multi()
      .incr(k)
      .expire(k, 2 * windowSeconds + 1)
      .get(before)
      .exec()) as [[Error | null, number], unknown, [Error | null, string | null]];
    return [n, Number(previous ?? 0)];
  }

  async counts(key: string, windowSeconds: number, now: number): Promise<[number, number]> {
    const [current, previous] = await this.redis.mget(...this.slots(key, windowSeconds, now));
    return [Number(current ?? 0), Number(previous ?? 0)];
  }
}

/** Counts one hit against `limit` per `windowSeconds`; true while the caller is within the limit. */
export type RateLimiter = (key: string, limit: number, windowSeconds: number) => Promise<boolean>;

/**
 * The hits a sliding window of `windowSeconds` ending at `now` is taken to hold: the current fixed window's count
 * and the previous window's, weighted by the share of it the sliding window still covers.
 */
export function slidingCount(current: number, previous: number, windowSeconds: number, now: number): number {
  const windowMs = windowSeconds * 1000;
  return current + previous * (1 - (now % windowMs) / windowMs);
}

/** The hits a sliding window ending `now` holds (slidingCount), from a window's counts and its predecessor's. */
async function slid(
  counts: Promise<[number, number]> | [number, number],
  windowSeconds: number,
  now: number,
): Promise<number> {
  const [current, previous] = await counts;
  return slidingCount(current, previous, windowSeconds, now);
}

/** Counts a hit under `key` at `now`: the hits its sliding window then holds, this one included. */
export const slidingHit = (counters: WindowCounters, key: string, windowSeconds: number, now: number) =>
  slid(counters.hit(key, windowSeconds, now), windowSeconds, now);

/** The hits under `key` in the sliding window ending `now`, nothing counted. */
export const slidingRead = (counters: WindowCounters, key: string, windowSeconds: number, now: number) =>
  slid(counters.counts(key, windowSeconds, now), windowSeconds, now);

/**
 * A rate limiter over window counters (in memory for one node, in Redis for a cluster) that slides: a hit is
 * refused when the current window's count plus the previous window's, weighted (slidingCount), passes `limit`.
 * Fixed windows alone let a caller spend two windows' allowance in an instant across a boundary (40 sign-in
 * attempts in two seconds under "20 per 20 minutes"); here any span of d ≤ one window admits at most
 * limit × (1 + d / window) hits (a property test holds it). Refused hits count too.
 */
export const rateLimiterOver =
  (counters: WindowCounters, clock: () => number = Date.now): RateLimiter =>
  async (key, limit, windowSeconds) =>
    (await slidingHit(counters, `rl:${key}`, windowSeconds, clock())) <= limit;
