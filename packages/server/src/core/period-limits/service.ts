import type { PeriodRemaining } from '@tollway/shared';
import type { Redis } from 'ioredis';
import type { OptionsService } from '../options/service.js';
import { quotaCounters, requestCounters } from './counters.js';
import { MemoryPeriodStore } from './memory-store.js';
import { slotLeavesAt } from './periods.js';
import { RedisPeriodStore } from './redis-store.js';
import type { PeriodCounter, PeriodLimits, PeriodStore, PeriodUse } from './types.js';

/** A take refused: the counter with the least room and its count. */
export interface PeriodRefused {
  counter: PeriodCounter;
  use: PeriodUse;
}

/** When a counter's count drops: the period's end, or when the rolling window's oldest amount leaves it. */
export function resetAt(c: PeriodCounter, u: PeriodUse): number {
  if (c.slot < 0) return c.endsAt;
  return slotLeavesAt(u.oldest >= 0 ? u.oldest : c.slot);
}

/**
 * Period limits of tokens and users: quota per day, week, month and rolling 5 hours, counted at the hold (an upper
 * bound of the charge) and moved to the charge at settlement; requests per day counted at admission. One per
 * application (periodLimitsOf); `now` is its clock (tests move it).
 */
export class PeriodLimitsService {
  now: () => number = Date.now;

  constructor(readonly store: PeriodStore) {}

  /** Counts one request at `at` under the requests-per-day limits; the refusal when one is used up. */
  async takeRequest(p: PeriodLimits, at: number): Promise<PeriodRefused | undefined> {
    const counters = requestCounters(p, at);
    if (!counters.length) return undefined;
    const took = await this.store.take(counters, 1, 1, at);
    return took.refused === undefined ? undefined : { counter: counters[took.refused]!, use: took.uses[took.refused]! };
  }

  /** Takes up to `amount` (at least `minimum`) at `at` under the quota limits: the amount granted, or the refusal. */
  async takeQuota(p: PeriodLimits, amount: number, minimum: number, at: number): Promise<number | PeriodRefused> {
    const counters = quotaCounters(p, at);
    if (!counters.length) return amount;
    const took = await this.store.take(counters, amount, minimum, at);
    return took.refused === undefined
      ? took.granted
      : { counter: counters[took.refused]!, use: took.uses[took.refused]! };
  }

  /** Moves the quota counted at `at` by `delta` (settlement: charge − hold; a give-back: −hold). */
  async adjustQuota(p: PeriodLimits, at: number, delta: number): Promise<void> {
    if (delta === 0) return;
    const counters = quotaCounters(p, at);
    if (counters.length) await this.store.adjust(counters, delta, this.now());
  }

  /** Every configured limit of `p` with what is used, what is left and when it resets (nothing is counted). */
  async remaining(p: PeriodLimits): Promise<PeriodRemaining[]> {
    const now = this.now();
    const counters = [...quotaCounters(p, now), ...requestCounters(p, now)];
    if (!counters.length) return [];
    const took = await this.store.take(counters, 0, 0, now);
    return counters.map((c, i) => {
      const u = took.uses[i]!;
      const counted = c.slot < 0 || u.oldest >= 0;
      return {
        level: c.level,
        period: c.period,
        limit: c.limit,
        used: u.used,
        remaining: Math.max(0, c.limit - u.used),
        reset_at: counted ? Math.floor(resetAt(c, u) / 1000) : 0,
      };
    });
  }
}

const services = new WeakMap<object, PeriodLimitsService>();

/** The application's period limits: counted in Redis when configured (every node together), else in memory. */
export function periodLimitsOf(ctx: {
  options: OptionsService;
  redis: Redis | undefined;
  config: { redisKeyPrefix: string };
}): PeriodLimitsService {
  let s = services.get(ctx.options);
  if (!s) {
    s = new PeriodLimitsService(
      ctx.redis ? new RedisPeriodStore(ctx.redis, ctx.config.redisKeyPrefix) : new MemoryPeriodStore(),
    );
    services.set(ctx.options, s);
  }
  return s;
}
