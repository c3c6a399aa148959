import type { Redis } from 'ioredis';
import type { OptionsService } from '../modules/options/service.js';
import type { TokenAuth } from './auth-cache.js';
import { relayErrors } from './errors.js';

/** Fixed-window counters: a Map on one node, Redis across a cluster. */
export interface WindowCounters {
  incr(key: string, windowSeconds: number): Promise<number> | number;
  get(key: string, windowSeconds: number): Promise<number> | number;
}

export class MemoryWindowCounters implements WindowCounters {
  private readonly counts = new Map<string, { n: number; endsAt: number }>();
  private lastSweep = 0;

  private slot(key: string, windowSeconds: number, now: number): [string, number] {
    const index = Math.floor(now / 1000 / windowSeconds);
    return [`${key}:${index}`, (index + 1) * windowSeconds * 1000];
  }

  incr(key: string, windowSeconds: number, now = Date.now()): number {
    this.sweep(now);
    const [k, endsAt] = this.slot(key, windowSeconds, now);
    const entry = this.counts.get(k);
    if (entry) return ++entry.n;
    this.counts.set(k, { n: 1, endsAt });
    return 1;
  }

  get(key: string, windowSeconds: number, now = Date.now()): number {
    return this.counts.get(this.slot(key, windowSeconds, now)[0])?.n ?? 0;
  }

  /** Drops finished windows, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, e] of this.counts) if (e.endsAt <= now) this.counts.delete(k);
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
    const [[, n]] = (await this.redis.multi().incr(k).expire(k, windowSeconds + 1).exec()) as [[Error | null, number]];
    return n;
  }

  async get(key: string, windowSeconds: number): Promise<number> {
    return Number((await this.redis.get(this.slot(key, windowSeconds))) ?? 0);
  }
}

interface Limit {
  key: string;
  windowSeconds: number;
  total: number;
  success: number;
}

/** The limits that apply to a call: the model request limit per user (unless exempt) and the token's own. */
function limitsFor(o: OptionsService, auth: TokenAuth, group: string): Limit[] {
  const out: Limit[] = [];
  if (o.bool('ModelRequestRateLimitEnabled')) {
    const exempt = o.bool('global.rate_limit_exempt_enabled') && group === o.get('global.rate_limit_exempt_group');
    const minutes = o.num('ModelRequestRateLimitDurationMinutes');
    if (!exempt && minutes > 0) out.push({ key: `mrl:${auth.userId}`, windowSeconds: minutes * 60, total: o.num('ModelRequestRateLimitCount'), success: o.num('ModelRequestRateLimitSuccessCount') });
  }
  if (auth.rateLimit) out.push({ key: `trl:${auth.tokenId}`, windowSeconds: auth.rateLimit.periodSeconds, total: auth.rateLimit.count, success: auth.rateLimit.success });
  return out;
}

/**
 * Counts the call against every applicable window and refuses with 429 when the total count (all calls) or
 * the successful count of the window is used up. Returns what to count on success.
 */
export async function checkRateLimits(counters: WindowCounters, o: OptionsService, auth: TokenAuth, group: string): Promise<Limit[]> {
  const limits = limitsFor(o, auth, group);
  for (const l of limits) {
    if (l.total > 0 && (await counters.incr(`${l.key}:t`, l.windowSeconds)) > l.total) {
      throw relayErrors.rateLimited(`at most ${l.total} requests per ${l.windowSeconds / 60} minute(s)`);
    }
    if (l.success > 0 && (await counters.get(`${l.key}:s`, l.windowSeconds)) >= l.success) {
      throw relayErrors.rateLimited(`at most ${l.success} successful requests per ${l.windowSeconds / 60} minute(s)`);
    }
  }
  return limits;
}

/** Counts a successful call in its windows (fire and forget). */
export function countSuccess(counters: WindowCounters, limits: Limit[]): void {
  for (const l of limits) if (l.success > 0) void Promise.resolve(counters.incr(`${l.key}:s`, l.windowSeconds)).catch(() => undefined);
}
