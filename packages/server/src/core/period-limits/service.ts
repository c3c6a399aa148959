import type { PeriodRemaining } from '@tollway/shared';
import type { Redis } from 'ioredis';
import type { Db } from '../../db/connect.js';
import type { OptionsService } from '../options/service.js';
import { seedFromLogs, type PeriodSeed } from './log-seeds.js';
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
  /** Seeds being read, one per counter key: concurrent first calls wait for the same one. */
  private readonly seeding = new Map<string, Promise<void>>();

  constructor(
    readonly store: PeriodStore,
    /** Where a node-local counter not held yet starts from (the consume logs); absent: from 0. */
    private readonly seeds?: Seeder,
  ) {}

  /**
   * Starts the counters this node does not hold yet from their seeds, before anything is counted in them: after a
   * restart a single node goes on from the period's consume logs. The take that follows stays one synchronous step.
   */
  private async seeded(p: PeriodLimits, counters: PeriodCounter[], at: number): Promise<void> {
    const store = this.store;
    if (!this.seeds || !(store instanceof MemoryPeriodStore)) return;
    let waits: Promise<void>[] | undefined;
    for (const c of counters) {
      if (store.has(c.key, at)) continue;
      let w = this.seeding.get(c.key);
      if (!w) {
        w = this.seeds(c, p.userId, at)
          .then((seed) => store.seed(c, seed, at))
          .finally(() => this.seeding.delete(c.key));
        this.seeding.set(c.key, w);
      }
      (waits ??= []).push(w);
    }
    if (waits) await Promise.all(waits);
  }

  /** Counts one request at `at` under the requests-per-day limits; the refusal when one is used up. */
  async takeRequest(p: PeriodLimits, at: number): Promise<PeriodRefused | undefined> {
    const counters = requestCounters(p, at);
    if (!counters.length) return undefined;
    await this.seeded(p, counters, at);
    const took = await this.store.take(counters, 1, 1, at);
    return took.refused === undefined ? undefined : { counter: counters[took.refused]!, use: took.uses[took.refused]! };
  }

  /** Takes up to `amount` (at least `minimum`) at `at` under the quota limits: the amount granted, or the refusal. */
  async takeQuota(p: PeriodLimits, amount: number, minimum: number, at: number): Promise<number | PeriodRefused> {
    const counters = quotaCounters(p, at);
    if (!counters.length) return amount;
    await this.seeded(p, counters, at);
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
    await this.seeded(p, counters, now);
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

/** Where a counter starts: (counter, its owner's user id, the moment) → its seed. */
export type Seeder = (c: PeriodCounter, userId: number, at: number) => Promise<PeriodSeed>;

/**
 * The application's period limits: counted in Redis when configured (every node together; Redis keeps them across
 * restarts), else in memory, a counter starting from the period's consume logs when this node first uses it (a
 * failed read starts it at 0, warned).
 */
export function periodLimitsOf(ctx: {
  options: OptionsService;
  redis: Redis | undefined;
  config: { redisKeyPrefix: string };
  logDb: Db;
  log: { warn(obj: object, msg: string): void };
}): PeriodLimitsService {
  let s = services.get(ctx.options);
  if (!s) {
    s = ctx.redis
      ? new PeriodLimitsService(new RedisPeriodStore(ctx.redis, ctx.config.redisKeyPrefix))
      : new PeriodLimitsService(new MemoryPeriodStore(), (c, userId, at) =>
          seedFromLogs(ctx.logDb, c, userId, at).catch((err: unknown) => {
            ctx.log.warn({ err, counter: c.key }, 'period limits: reading the consume logs failed; counting from 0');
            return 0;
          }),
        );
    services.set(ctx.options, s);
  }
  return s;
}
