import type { PeriodRemaining } from '@tollway/shared';
import type { Redis } from 'ioredis';
import type { Db } from '../../db/connect.js';
import type { OptionsService } from '../options/service.js';
import { seedFromLogs, type PeriodSeed } from './log-seeds.js';
import { quotaCounters, requestCounters } from './counters.js';
import { MemoryPeriodStore } from './memory-store.js';
import { slotLeavesAt } from './periods.js';
import { RedisPeriodStore } from './redis-store.js';
import { budgetCounter, budgetCounters, type BudgetRule } from './budget-counters.js';
import type { CounterRef, PeriodCounter, PeriodLimits, PeriodStore, PeriodTake, PeriodUse } from './types.js';

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

  /**
   * Takes up to `amount` (at least `minimum`) at `at` under the quota limits and the call's budgets, in one atomic
   * step across all of them: the amount granted, or the refusal.
   */
  async takeQuota(p: PeriodLimits, amount: number, minimum: number, at: number): Promise<number | PeriodRefused> {
    const counters = quotaAndBudgetCounters(p, at);
    if (!counters.length) return amount;
    await this.seeded(p, counters, at);
    const took = await this.takeSeeded(counters, p.userId, amount, minimum, at);
    return took.refused === undefined
      ? took.granted
      : { counter: counters[took.refused]!, use: took.uses[took.refused]! };
  }

  /**
   * A take in a shared store that holds budget counters only once seeded: a missing one (new, expired, or deleted
   * from Redis) starts from the logs (SET NX, so the first node's seed stands) and the take runs again.
   */
  private async takeSeeded(
    counters: PeriodCounter[],
    userId: number,
    amount: number,
    minimum: number,
    at: number,
  ): Promise<PeriodTake> {
    for (let round = 0; ; round++) {
      const took = await this.store.take(counters, amount, minimum, at);
      if (took.missing === undefined) return took;
      const store = this.store;
      if (!(store instanceof RedisPeriodStore) || !this.seeds || round >= counters.length)
        throw new Error(`period limits: counter ${counters[took.missing]!.key} could not be seeded`);
      const c = counters[took.missing]!;
      const seed = await this.seeds(c, userId, at);
      await store.seed(c, typeof seed === 'number' ? seed : 0, at);
    }
  }

  /** Moves the quota counted at `at` by `delta` (settlement: charge − hold; a give-back: −hold). */
  async adjustQuota(p: PeriodLimits, at: number, delta: number): Promise<void> {
    if (delta === 0) return;
    const counters = quotaAndBudgetCounters(p, at);
    if (counters.length) await this.store.adjust(counters, delta, this.now());
  }

  /**
   * The counters a charge at `at` was counted in (quota limits and budgets), as a deferred refund keeps them (a task
   * charged now and refunded when it fails, maybe days later): each counter's key and slot.
   */
  chargedCounters(p: PeriodLimits | undefined, at: number | undefined): CounterRef[] {
    if (!p || at === undefined) return [];
    return quotaAndBudgetCounters(p, at).map((c) => ({ key: c.key, slot: c.slot }));
  }

  /**
   * Gives `amount` back to the counters of an earlier charge (a refund): each goes down by it, never below 0; a
   * counter whose period has ended is gone and stays so.
   */
  async giveBack(counters: readonly CounterRef[], amount: number): Promise<void> {
    if (counters.length && amount > 0) await this.store.adjust(counters, -amount, this.now());
  }

  /** What each budget of an organization (its wallet account `walletUserId`) has used in its current period. */
  async budgetUses(
    rules: readonly BudgetRule[],
    walletUserId: number,
  ): Promise<{ counter: PeriodCounter; used: number }[]> {
    const now = this.now();
    // Soft or not, the view shows the count: read with the budget's counter as it is kept.
    const counters = rules.map((b) => budgetCounter(b, now));
    if (!counters.length) return [];
    await this.seeded({ tokenId: 0, userId: walletUserId, token: undefined, user: undefined }, counters, now);
    const took = await this.takeSeeded(counters, walletUserId, 0, 0, now);
    return counters.map((counter, i) => ({ counter, used: took.uses[i]!.used }));
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
        // Only the token's and user's own counters are listed here (budgets: the organization's budgets view).
        level: c.level as PeriodRemaining['level'],
        period: c.period as PeriodRemaining['period'],
        limit: c.limit,
        used: u.used,
        remaining: Math.max(0, c.limit - u.used),
        reset_at: counted ? Math.floor(resetAt(c, u) / 1000) : 0,
      };
    });
  }
}

/** The quota counters of a call (token's, user's) and then its budgets'. */
function quotaAndBudgetCounters(p: PeriodLimits, at: number): PeriodCounter[] {
  const counters = quotaCounters(p, at);
  if (p.budgets) for (const c of budgetCounters(p, at)) counters.push(c);
  return counters;
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
    const seeds: Seeder = (c, userId, at) =>
      seedFromLogs(ctx.logDb, c, userId, at).catch((err: unknown) => {
        ctx.log.warn({ err, counter: c.key }, 'period limits: reading the consume logs failed; counting from 0');
        return 0;
      });
    // Redis keeps token and user counters across restarts; its budget counters alone start from the logs.
    s = ctx.redis
      ? new PeriodLimitsService(new RedisPeriodStore(ctx.redis, ctx.config.redisKeyPrefix), seeds)
      : new PeriodLimitsService(new MemoryPeriodStore(), seeds);
    services.set(ctx.options, s);
  }
  return s;
}
