import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { periodEnd, slotLeavesAt, slotOf } from '../../src/core/period-limits/periods.js';
import { setupRoot, type Client, type TestApp } from '../support/app.js';
import { addChannel, listen } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import {
  claudeCall,
  FIXED_MODEL,
  limitedToken,
  openaiCall,
  PER_CALL,
  periodUsage,
  setPeriodClock,
} from '../support/period-limits.js';
import { TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';

const RATIO_MODEL = 'gpt-4o-mini';
/** Noon of a Wednesday, local time: the period clock of both nodes. */
const NOON = new Date(2026, 11, 2, 12, 0, 0).getTime();

/** Two nodes sharing PostgreSQL and Redis count one period limit together. */
describe('period limits across two nodes with Redis', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseA: string, baseB: string, prefix: string;
  useTwoNodes({}, async (nodes) => {
    ({ a, b, prefix } = nodes);
    mock = await startMockUpstream({ record: false });
    root = await setupRoot(a.app);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await addChannel(root, {
      name: 'shared',
      key: 'shared-key',
      baseUrl: mock.url,
      models: `${FIXED_MODEL},${RATIO_MODEL}`,
    });
    baseA = await listen(a);
    baseB = await listen(b);
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('default', FIXED_MODEL); i++)
      await new Promise((r) => setTimeout(r, 50));
    // The option reaches node B through the bus.
    for (
      let i = 0;
      i < 100 && b.runtime.ctx.options.json<Record<string, number>>('ModelPrice')[FIXED_MODEL] !== 0.001;
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => mock?.close());
  const clock = (at: number | undefined) => {
    setPeriodClock(a, at);
    setPeriodClock(b, at);
  };
  afterEach(() => clock(undefined));

  it('one quota per day counts the calls of both nodes, to its edge, and refuses in either protocol', async () => {
    clock(NOON);
    const { key, id } = await limitedToken(a, root, 'cluster-day', { quota_per_day: 3 * PER_CALL });
    const seen: number[] = [];
    for (const base of [baseA, baseB, baseA]) seen.push((await openaiCall(base, key)).status);
    expect(seen).toEqual([200, 200, 200]);
    const refused = await openaiCall(baseB, key);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'period_limit_reached' });
    expect(body.error.message).toBe(
      `daily quota limit of this token reached (${3 * PER_CALL} of ${3 * PER_CALL} used, this call needs ${PER_CALL}); ` +
        `resets at ${new Date(periodEnd('day', NOON)).toISOString()}`,
    );
    expect(Number(refused.headers.get('retry-after'))).toBe((periodEnd('day', NOON) - NOON) / 1000);
    const claude = await claudeCall(baseA, key);
    expect(claude.status).toBe(429);
    expect(await claude.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const redis = new Redis(TEST_REDIS);
    try {
      const keys = await redis.keys(`${prefix}pl:token:${id}:*`);
      expect(keys).toEqual([`${prefix}pl:token:${id}:day:${new Date(2026, 11, 2).getTime()}`]);
      expect(await redis.get(keys[0]!)).toBe(String(3 * PER_CALL));
      expect(await redis.pttl(keys[0]!)).toBeGreaterThan(periodEnd('day', NOON) - NOON);
    } finally {
      redis.disconnect();
    }
  });

  it('a burst of 20 concurrent calls over both nodes never spends more than the quota per 5 hours', async () => {
    clock(NOON);
    const { key } = await limitedToken(a, root, 'cluster-burst', { quota_per_5h: 5 * PER_CALL });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => openaiCall(i % 2 ? baseA : baseB, key).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    expect(await periodUsage(baseB, key)).toEqual([
      {
        level: 'token',
        period: '5h',
        limit: 5 * PER_CALL,
        used: 5 * PER_CALL,
        remaining: 0,
        reset_at: slotLeavesAt(slotOf(NOON)) / 1000,
      },
    ]);
    // The window lets go of noon's slot 5 hours after it began, on both nodes.
    clock(slotLeavesAt(slotOf(NOON)) - 1);
    expect((await openaiCall(baseA, key)).status).toBe(429);
    clock(slotLeavesAt(slotOf(NOON)));
    expect((await openaiCall(baseB, key)).status).toBe(200);
  });

  it('settlement moves the shared counter from the hold to the charge; requests per day and a user limit are shared', async () => {
    clock(NOON);
    const { user, key, id } = await limitedToken(a, root, 'cluster-settle', {
      quota_per_month: 100_000_000,
      requests_per_day: 2,
    });
    expect((await openaiCall(baseA, key, RATIO_MODEL, 4000)).status).toBe(200);
    const charged = async () =>
      Number((await user.call<{ used_quota: number }>('GET', `/api/token/${id}`)).body.data!.used_quota);
    for (let i = 0; i < 100 && (await charged()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const charge = await charged();
    expect(charge).toBeGreaterThan(0);
    let month = (await periodUsage(baseB, key)).find((l) => l.period === 'month')!;
    for (let i = 0; i < 100 && month.used !== charge; i++) {
      await new Promise((r) => setTimeout(r, 20));
      month = (await periodUsage(baseB, key)).find((l) => l.period === 'month')!;
    }
    expect(month).toMatchObject({ used: charge, remaining: 100_000_000 - charge });
    expect((await openaiCall(baseB, key)).status).toBe(200);
    const third = await openaiCall(baseA, key);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { message: string } }).error.message).toContain(
      'daily request limit of this token reached (2 of 2 requests made)',
    );
    // A user limit, set on node A, holds on node B too.
    const other = await limitedToken(a, root, 'cluster-user', {});
    expect(
      (await root.call('PUT', '/api/user/', { id: other.user.userId, quota_per_week: PER_CALL })).body.success,
    ).toBe(true);
    for (let i = 0; i < 100 && !(await periodUsage(baseB, other.key)).length; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await openaiCall(baseB, other.key)).status).toBe(200);
    const user429 = await openaiCall(baseA, other.key);
    expect(user429.status).toBe(429);
    expect(((await user429.json()) as { error: { message: string } }).error.message).toContain(
      'weekly quota limit of this user reached',
    );
  });
});
