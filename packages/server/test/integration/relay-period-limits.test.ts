import { LogType, type PeriodKind } from '@tollway/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { quotaCounters, requestCounters } from '../../src/core/period-limits/counters.js';
import { seedFromLogs } from '../../src/core/period-limits/log-seeds.js';
import {
  periodEnd,
  periodStart,
  slotLeavesAt,
  slotOf,
  type CalendarPeriod,
} from '../../src/core/period-limits/periods.js';
import { MemoryPeriodStore } from '../../src/core/period-limits/memory-store.js';
import { periodLimitsOf } from '../../src/core/period-limits/service.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import {
  claudeCall,
  FIXED_MODEL,
  limitedToken,
  openaiCall,
  PER_CALL,
  periodUsage,
  setPeriodClock,
} from '../support/period-limits.js';

/** The moment the tests' period clock is set to: noon of a Wednesday, local time. */
const NOON = new Date(2026, 11, 2, 12, 0, 0).getTime();
const RATIO_MODEL = 'gpt-4o-mini';

const LIMIT_KEY = {
  day: 'quota_per_day',
  week: 'quota_per_week',
  month: 'quota_per_month',
  '5h': 'quota_per_5h',
} as const;
const LIMIT_NAME = { day: 'daily quota', week: 'weekly quota', month: 'monthly quota', '5h': '5-hour quota' } as const;

/** When a limit counted at NOON resets. */
const resetOf = (p: Exclude<PeriodKind, 'requests_day'>) =>
  p === '5h' ? slotLeavesAt(slotOf(NOON)) : periodEnd(p as CalendarPeriod, NOON);

type ErrorBody = { error: { type: string; code?: string; message: string } };

describe.each(dialects)('period limits on one node (%s)', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway(dialect, {}, async (gw) => {
    ({ t, mock, root, base } = gw);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await addChannel(root, {
      name: 'main',
      key: 'main-key',
      baseUrl: mock.url,
      models: `${FIXED_MODEL},${RATIO_MODEL}`,
    });
  });
  afterEach(() => setPeriodClock(t, undefined));

  /** A refusal: HTTP 429 in the caller's protocol, naming the limit, with retry-after to its reset. */
  const expectRefused = async (res: Response, text: string, resetAt: number, shape: 'openai' | 'claude') => {
    expect(res.status).toBe(429);
    const body = (await res.json()) as ErrorBody & { type?: string };
    if (shape === 'claude') expect(body.type).toBe('error');
    else expect(body.error.code).toBe('period_limit_reached');
    expect(body.error.type).toBe('rate_limit_error');
    expect(body.error.message).toContain(text);
    expect(body.error.message).toContain(`resets at ${new Date(resetAt).toISOString()}`);
    expect(Number(res.headers.get('retry-after'))).toBe(Math.ceil((resetAt - NOON) / 1000));
  };

  it.each(['day', 'week', 'month', '5h'] as const)(
    'a token quota per %s: calls that reach it exactly pass, the next is a 429 (OpenAI and Claude)',
    async (period) => {
      setPeriodClock(t, NOON);
      const { key } = await limitedToken(t, root, `edge-${period}-${dialect}`, { [LIMIT_KEY[period]]: 3 * PER_CALL });
      for (let i = 0; i < 3; i++) expect((await openaiCall(base, key)).status).toBe(200);
      const text = `${LIMIT_NAME[period]} limit of this token reached (${3 * PER_CALL} of ${3 * PER_CALL} used`;
      await expectRefused(await openaiCall(base, key), text, resetOf(period), 'openai');
      await expectRefused(await claudeCall(base, key), text, resetOf(period), 'claude');
      expect(await periodUsage(base, key)).toEqual([
        {
          level: 'token',
          period,
          limit: 3 * PER_CALL,
          used: 3 * PER_CALL,
          remaining: 0,
          reset_at: Math.floor(resetOf(period) / 1000),
        },
      ]);
    },
  );

  it('a user quota per day counts every token of the user; set and shown through the admin and self views', async () => {
    setPeriodClock(t, NOON);
    const { user, key } = await limitedToken(t, root, `user-day-${dialect}`, {});
    const other = await addToken(t, user.userId!, { unlimited: true });
    const bad = await root.call('PUT', '/api/user/', { id: user.userId, quota_per_day: -1 });
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('quota_per_day') });
    const ok = await root.call('PUT', '/api/user/', { id: user.userId, quota_per_day: 2 * PER_CALL });
    expect(ok.body.success).toBe(true);
    expect((await root.call('GET', `/api/user/${user.userId}`)).body.data).toMatchObject({
      quota_per_day: 2 * PER_CALL,
      quota_per_week: 0,
      requests_per_day: 0,
    });
    expect((await openaiCall(base, key)).status).toBe(200);
    expect((await openaiCall(base, other.key)).status).toBe(200);
    await expectRefused(
      await openaiCall(base, key),
      `daily quota limit of this user reached (${2 * PER_CALL} of ${2 * PER_CALL} used`,
      periodEnd('day', NOON),
      'openai',
    );
    const self = await user.call<{ period_limits: unknown[] }>('GET', '/api/user/self');
    expect(self.body.data!.period_limits).toEqual([
      {
        level: 'user',
        period: 'day',
        limit: 2 * PER_CALL,
        used: 2 * PER_CALL,
        remaining: 0,
        reset_at: periodEnd('day', NOON) / 1000,
      },
    ]);
  });

  it('requests per day count requests: the third of two is a 429, whatever the price', async () => {
    setPeriodClock(t, NOON);
    const { key } = await limitedToken(t, root, `rpd-${dialect}`, { requests_per_day: 2 });
    expect((await openaiCall(base, key, RATIO_MODEL)).status).toBe(200);
    expect((await openaiCall(base, key)).status).toBe(200);
    await expectRefused(
      await claudeCall(base, key),
      'daily request limit of this token reached (2 of 2 requests made)',
      periodEnd('day', NOON),
      'claude',
    );
    // Gemini's shape too.
    const gemini = await fetch(`${base}/v1beta/models/${FIXED_MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'count me' }] }] }),
    });
    expect(gemini.status).toBe(429);
    expect(await gemini.json()).toMatchObject({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('daily request limit') },
    });
  });

  it('a hold larger than the room left is cut to it (at least the call minimum): the charge stays within the limit', async () => {
    setPeriodClock(t, NOON);
    const limit = 100;
    const { user, key, id } = await limitedToken(t, root, `clamp-${dialect}`, { quota_per_day: limit });
    // A ratio-priced call with max_tokens 4000 holds about 1200 quota, far more than 100; its minimum (the prompt) fits.
    const res = await openaiCall(base, key, RATIO_MODEL, 4000);
    expect(res.status).toBe(200);
    await drainWriter(t);
    const charged = (await user.call<{ used_quota: number }>('GET', `/api/token/${id}`)).body.data!.used_quota;
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThanOrEqual(limit);
    expect((await periodUsage(base, key))[0]).toMatchObject({ used: charged, remaining: limit - charged });
  });

  it('a burst of 20 concurrent calls never spends more than the quota per day', async () => {
    setPeriodClock(t, NOON);
    const { user, key, id } = await limitedToken(t, root, `burst-${dialect}`, { quota_per_day: 5 * PER_CALL });
    const statuses = await Promise.all(Array.from({ length: 20 }, () => openaiCall(base, key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    await drainWriter(t);
    const token = await user.call<{ used_quota: number; period_limits: { used: number }[] }>('GET', `/api/token/${id}`);
    expect(token.body.data!.used_quota).toBe(5 * PER_CALL);
    expect(token.body.data!.period_limits[0]!.used).toBe(5 * PER_CALL);
  });

  it('settlement moves the count from the hold to the charge; a failed call gives its hold back', async () => {
    setPeriodClock(t, NOON);
    const { user, key, id } = await limitedToken(t, root, `settle-${dialect}`, { quota_per_week: 100_000_000 });
    // A ratio-priced call holds its prompt and max_tokens, and is charged for the mock's 12 + 5 tokens.
    expect((await openaiCall(base, key, RATIO_MODEL, 4000)).status).toBe(200);
    await drainWriter(t);
    const charged = (await user.call<{ used_quota: number }>('GET', `/api/token/${id}`)).body.data!.used_quota;
    expect(charged).toBeGreaterThan(0);
    expect((await periodUsage(base, key))[0]).toMatchObject({ used: charged, remaining: 100_000_000 - charged });
    await addChannel(root, { name: `failing-${dialect}`, key: 'fail-key', baseUrl: mock.url, models: 'failing-model' });
    mock.behaviors.set('fail-key', { failStatus: 500 });
    await root.call('PUT', '/api/option/', {
      key: 'ModelPrice',
      value: JSON.stringify({ [FIXED_MODEL]: 0.001, 'failing-model': 0.001 }),
    });
    expect((await openaiCall(base, key, 'failing-model')).status).toBe(500);
    expect((await periodUsage(base, key))[0]).toMatchObject({ used: charged });
  });

  it('a period ends at its boundary: the day at the next local midnight, the 5-hour window slot by slot', async () => {
    setPeriodClock(t, NOON);
    const { user, id, key } = await limitedToken(t, root, `reset-${dialect}`, {
      quota_per_day: 2 * PER_CALL,
      quota_per_5h: 2 * PER_CALL,
    });
    expect((await openaiCall(base, key)).status).toBe(200);
    expect((await openaiCall(base, key)).status).toBe(200);
    expect((await openaiCall(base, key)).status).toBe(429);
    // Just before the window lets go of noon's slot (the same day): both limits are still used up.
    setPeriodClock(t, slotLeavesAt(slotOf(NOON)) - 1);
    expect((await openaiCall(base, key)).status).toBe(429);
    // The 5-hour window is empty again, the day is not.
    setPeriodClock(t, slotLeavesAt(slotOf(NOON)));
    const day = await openaiCall(base, key);
    expect(day.status).toBe(429);
    expect(((await day.json()) as ErrorBody).error.message).toContain('daily quota limit of this token reached');
    // Lifting the day limit (an update through the API reaches the relay at once) lets the window's room through.
    expect((await user.call('PUT', '/api/token/', { id, quota_per_day: 0 })).body.success).toBe(true);
    expect((await openaiCall(base, key)).status).toBe(200);
    expect((await user.call('PUT', '/api/token/', { id, quota_per_day: 2 * PER_CALL })).body.success).toBe(true);
    // The next local midnight: a new day.
    setPeriodClock(t, periodEnd('day', NOON) + 5 * 3_600_000);
    expect((await openaiCall(base, key)).status).toBe(200);
  });

  it('after a restart one node starts each counter from the consume logs of its period', async () => {
    const { key } = await limitedToken(t, root, `restart-${dialect}`, {
      quota_per_day: 3 * PER_CALL,
      quota_per_5h: 3 * PER_CALL,
      requests_per_day: 10,
    });
    expect((await openaiCall(base, key)).status).toBe(200);
    expect((await openaiCall(base, key)).status).toBe(200);
    await drainWriter(t);
    // The counters are gone, as after a restart; the logs hold two calls.
    (periodLimitsOf(t.runtime.ctx).store as MemoryPeriodStore).clear();
    expect((await periodUsage(base, key)).map((l) => [l.period, l.used])).toEqual([
      ['day', 2 * PER_CALL],
      ['5h', 2 * PER_CALL],
      ['requests_day', 2],
    ]);
    expect((await openaiCall(base, key)).status).toBe(200);
    const refused = await openaiCall(base, key);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as ErrorBody).error.message).toContain(
      `daily quota limit of this token reached (${3 * PER_CALL} of ${3 * PER_CALL} used`,
    );
  });

  it('a counter seeded from the logs takes each row in its period or 5-minute slot, nothing after the moment', async () => {
    const { user, id } = await limitedToken(t, root, `seed-${dialect}`, {});
    const row = (at: number, quota: number, tokenId = id) => ({
      user_id: user.userId!,
      created_at: Math.floor(at / 1000),
      type: LogType.Consume,
      content: '',
      username: `seed-${dialect}`,
      token_name: '',
      model_name: FIXED_MODEL,
      quota,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: 0,
      is_stream: 0,
      channel_id: 0,
      channel_name: '',
      token_id: tokenId,
      group: 'default',
      ip: '',
      request_id: '',
      other: '',
    });
    const HOUR = 3_600_000;
    await t.runtime.ctx.logDb.kysely
      .insertInto('logs')
      .values([
        row(NOON - 6 * HOUR, 1), // today, before the 5-hour window
        row(NOON - 4 * HOUR, 10), // in the window, 4 hours back
        row(NOON - 60_000, 100, id + 1_000_000), // another token of the user
        row(NOON, 1_000), // this moment
        row(NOON + 60_000, 10_000), // after it: not counted
        row(periodStart('day', NOON) - 1_000, 100_000), // yesterday
      ])
      .execute();
    const limits = { tokenId: id, userId: user.userId!, token: undefined, user: undefined };
    const set = { day: 1, week: 0, month: 0, fiveHours: 1, requestsPerDay: 1 };
    const [day, fiveHours] = quotaCounters({ ...limits, token: set }, NOON);
    const [requests] = requestCounters({ ...limits, token: set }, NOON);
    const [userDay] = quotaCounters({ ...limits, user: set }, NOON);
    const db = t.runtime.ctx.logDb;
    expect(await seedFromLogs(db, day!, user.userId!, NOON)).toBe(1_011);
    expect(await seedFromLogs(db, userDay!, user.userId!, NOON)).toBe(1_111);
    expect(await seedFromLogs(db, requests!, user.userId!, NOON)).toBe(3);
    expect(await seedFromLogs(db, fiveHours!, user.userId!, NOON)).toEqual(
      new Map([
        [slotOf(NOON - 4 * HOUR), 10],
        [slotOf(NOON), 1_000],
      ]),
    );
  });

  it('the token API validates and returns the limits', async () => {
    const { user, id } = await limitedToken(t, root, `api-${dialect}`, { quota_per_month: 7, requests_per_day: 3 });
    const shown = await user.call<Record<string, number>>('GET', `/api/token/${id}`);
    expect(shown.body.data).toMatchObject({
      quota_per_day: 0,
      quota_per_week: 0,
      quota_per_month: 7,
      quota_per_5h: 0,
      requests_per_day: 3,
    });
    for (const [field, value] of [
      ['quota_per_day', -1],
      ['quota_per_5h', 1.5],
      ['requests_per_day', -2],
    ] as const) {
      const res = await user.call('PUT', '/api/token/', { id, [field]: value });
      expect(res.body).toMatchObject({ success: false, message: expect.stringContaining(field) });
    }
  });
});
