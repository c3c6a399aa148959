import { markedUp } from '@tollway/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  budgetAppliesTo,
  budgetCounter,
  budgetCounters,
  budgetResetsAt,
  TOTAL_COUNTER_IDLE_MS,
  type BudgetRule,
} from '../../src/core/period-limits/budget-counters.js';
import { MemoryPeriodStore } from '../../src/core/period-limits/memory-store.js';
import { periodEnd, periodStart } from '../../src/core/period-limits/periods.js';
import { PeriodLimitsService } from '../../src/core/period-limits/service.js';
import type { PeriodLimits } from '../../src/core/period-limits/types.js';
import type { TokenAuth } from '../../src/relay/entry/auth-cache.js';
import { tagCall } from '../../src/relay/entry/call-tags.js';
import { callLogRow } from '../../src/relay/billing/log-row.js';
import { RelayError } from '../../src/relay/pipeline/errors.js';
import { budgetRefusal } from '../../src/relay/limits/budget-refusal.js';

const NOON = new Date(2026, 11, 2, 12, 0, 0).getTime();

const rule = (over: Partial<BudgetRule>): BudgetRule => ({
  id: 1,
  orgId: 1,
  level: 'org',
  targetId: 0,
  tag: '',
  period: 'day',
  limit: 1_000,
  hard: true,
  alertPercents: [],
  alertEmail: false,
  alertWebhook: false,
  ...over,
});

describe('budget counters', () => {
  it('a budget applies to the tokens of its organization, team, member or token', () => {
    const h = { tokenId: 7, memberId: 3, teamId: 5 };
    expect(budgetAppliesTo(rule({ level: 'org' }), h)).toBe(true);
    expect(budgetAppliesTo(rule({ level: 'tag', tag: 'x' }), h)).toBe(true);
    expect(budgetAppliesTo(rule({ level: 'team', targetId: 5 }), h)).toBe(true);
    expect(budgetAppliesTo(rule({ level: 'team', targetId: 6 }), h)).toBe(false);
    expect(budgetAppliesTo(rule({ level: 'member', targetId: 3 }), h)).toBe(true);
    expect(budgetAppliesTo(rule({ level: 'member', targetId: 4 }), h)).toBe(false);
    expect(budgetAppliesTo(rule({ level: 'token', targetId: 7 }), h)).toBe(true);
    expect(budgetAppliesTo(rule({ level: 'token', targetId: 8 }), h)).toBe(false);
    // A token of no team or member is under no team or member budget.
    expect(budgetAppliesTo(rule({ level: 'team', targetId: 0 }), { tokenId: 7, memberId: 0, teamId: 0 })).toBe(false);
  });

  it('keys name the budget, its target, its period and the period start; soft budgets count without a limit', () => {
    const day = budgetCounter(rule({ id: 9, level: 'team', targetId: 5 }), NOON);
    expect(day).toMatchObject({
      level: 'budget',
      key: `budget:9:team:5:day:${periodStart('day', NOON)}`,
      limit: 1_000,
      slot: -1,
      endsAt: periodEnd('day', NOON),
      periodStart: periodStart('day', NOON),
    });
    expect(budgetResetsAt(day)).toBe(periodEnd('day', NOON));
    const tag = budgetCounter(rule({ id: 2, level: 'tag', tag: 'p_1', period: 'week', hard: false }), NOON);
    expect(tag.key).toBe(`budget:2:tag:p_1:week:${periodStart('week', NOON)}`);
    expect(tag.limit).toBe(Number.MAX_SAFE_INTEGER);
    const total = budgetCounter(rule({ id: 3, period: 'total' }), NOON);
    expect(total).toMatchObject({
      key: 'budget:3:org:0:total:0',
      periodStart: 0,
      endsAt: NOON + TOTAL_COUNTER_IDLE_MS,
    });
    expect(budgetResetsAt(total)).toBe(0);
    // The next period is another key; the same moment is the same key.
    const next = budgetCounter(rule({ id: 9, level: 'team', targetId: 5 }), periodEnd('day', NOON));
    expect(next.key).not.toBe(day.key);
  });

  it('a call counts under its tag budgets only when it carries the tag', () => {
    const budgets = [rule({ id: 1 }), rule({ id: 2, level: 'tag', tag: 'a' }), rule({ id: 3, level: 'tag', tag: 'b' })];
    const p: PeriodLimits = { tokenId: 1, userId: 1, token: undefined, user: undefined, budgets };
    expect(budgetCounters(p, NOON).map((c) => c.budget!.id)).toEqual([1]);
    expect(budgetCounters({ ...p, tags: ['b', 'c'] }, NOON).map((c) => c.budget!.id)).toEqual([1, 3]);
  });

  it('one take across a token limit and budgets: the tightest refuses, nothing is counted; soft never refuses', async () => {
    const limits = new PeriodLimitsService(new MemoryPeriodStore());
    limits.now = () => NOON;
    const p: PeriodLimits = {
      tokenId: 1,
      userId: 1,
      token: { day: 10_000, week: 0, month: 0, fiveHours: 0, requestsPerDay: 0 },
      user: undefined,
      budgets: [rule({ id: 1, limit: 900 }), rule({ id: 2, limit: 10, hard: false })],
    };
    expect(await limits.takeQuota(p, 600, 600, NOON)).toBe(600);
    const refused = await limits.takeQuota(p, 600, 600, NOON);
    expect(typeof refused).toBe('object');
    if (typeof refused === 'number') return;
    expect(refused.counter.budget!.id).toBe(1);
    expect(refused.use.used).toBe(600);
    // A smaller minimum is granted what is left, in every counter at once.
    expect(await limits.takeQuota(p, 600, 100, NOON)).toBe(300);
    const uses = await limits.budgetUses(p.budgets!, 1);
    expect(uses.map((u) => u.used)).toEqual([900, 900]);
    const e = budgetRefusal(refused, 600, NOON);
    expect(e).toBeInstanceOf(RelayError);
    expect(e).toMatchObject({ status: 429, code: 'budget_exceeded', type: 'rate_limit_error' });
    expect(e.headers?.['retry-after']).toBe(String((periodEnd('day', NOON) - NOON) / 1000));
    const total = budgetRefusal({ counter: budgetCounter(rule({ period: 'total' }), NOON), use: refused.use }, 1, NOON);
    expect(total).toMatchObject({ status: 403, code: 'budget_exceeded' });
    expect(total.headers).toBeUndefined();
  });

  it('concurrent takes never count past a hard budget (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 40 }),
        async (limit, amounts) => {
          const limits = new PeriodLimitsService(new MemoryPeriodStore());
          const p: PeriodLimits = {
            tokenId: 1,
            userId: 1,
            token: undefined,
            user: undefined,
            budgets: [rule({ limit })],
          };
          const took = await Promise.all(amounts.map((a) => limits.takeQuota(p, a, a, NOON)));
          const granted = took.reduce<number>((s, g) => s + (typeof g === 'number' ? g : 0), 0);
          expect(granted).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});

describe('spend tags and attribution on the log row', () => {
  const auth = { userId: 1, tokenId: 2, name: 't', username: 'u', memberId: 3, teamId: 4, markupBp: 0, tags: '' };
  const asAuth = (a: object) => a as unknown as TokenAuth;

  it('an untagged call is its token itself; a tagged one a copy carrying the tags', () => {
    const a = asAuth({ ...auth, periods: undefined });
    expect(tagCall(a, {}, { model: 'm' })).toBe(a);
    const tagged = tagCall(a, { 'x-tollway-tags': 'a, b' }, { metadata: { tags: 'b,c' } });
    expect(tagged).not.toBe(a);
    expect(tagged.tags).toBe(',a,b,c,');
    expect(a.tags).toBe('');
    for (const [header, reason] of [
      ['a,b,c,d,e,f,g,h,i,j,k', 'at most 10 tags'],
      ['x'.repeat(33), 'at most 32 characters'],
      ['a b', 'letters, digits'],
    ] as const) {
      let err: unknown;
      try {
        tagCall(a, { 'x-tollway-tags': header });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ status: 400, code: 'tags_invalid' });
      expect((err as Error).message).toContain(reason);
    }
  });

  it("a row carries member, team, tags and a reseller's price of the charge", () => {
    const identity = { group: 'default', model: 'm', stream: false, ip: '', requestId: 'r' };
    const fields = {
      created_at: 0,
      type: 2,
      content: '',
      quota: 1_234,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: 0,
      channel_id: 0,
      channel_name: '',
      other: '',
    };
    const plain = callLogRow({ ...identity, auth: asAuth(auth) }, fields);
    expect(plain).toMatchObject({ member_id: 3, team_id: 4, quota: 1_234 });
    // Defaults are left to the table (no tags, no reseller price): no cells written for them.
    expect(plain).not.toHaveProperty('tags');
    expect(plain).not.toHaveProperty('billed_quota');
    const personal = callLogRow({ ...identity, auth: asAuth({ ...auth, memberId: 0, teamId: 0 }) }, fields);
    for (const column of ['member_id', 'team_id', 'tags', 'billed_quota']) expect(personal).not.toHaveProperty(column);
    const reseller = asAuth({ ...auth, markupBp: 2_500, tags: ',x,' });
    expect(callLogRow({ ...identity, auth: reseller }, fields)).toMatchObject({
      tags: ',x,',
      billed_quota: markedUp(1_234, 2_500),
    });
  });
});
