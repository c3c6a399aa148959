import type { WindowCounters } from './window-counters.js';

/** Counts one hit against `limit` per `windowSeconds`; true while the caller is within the limit. */
export type RateLimiter = (key: string, limit: number, windowSeconds: number) => Promise<boolean>;

/** A rate limiter over fixed-window counters (in memory for one node, in Redis for a cluster). */
export const rateLimiterOver =
  (counters: WindowCounters): RateLimiter =>
  async (key, limit, windowSeconds) =>
    (await counters.incr(`rl:${key}`, windowSeconds)) <= limit;
