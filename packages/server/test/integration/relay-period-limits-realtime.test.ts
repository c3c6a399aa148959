import type { PeriodRemaining, Price } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';
import { assertMoneyInvariant, fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';
import { realtimeClient, receivedValue, PCM16_BYTES_PER_TOKEN } from '../support/realtime-client.js';

const MODEL = 'rt-period';
/** 2.5 × 4: ten quota per output token. */
const PRICE: Price = {
  mode: 'ratio',
  modelRatio: 2.5,
  completionRatio: 4,
  cacheRatio: 1,
  cacheCreationRatio: 1,
  groupRatio: 1,
};
/** Half a second of PCM16 per delta: ten output tokens, 100 quota. */
const DELTA_BYTES = 10 * PCM16_BYTES_PER_TOKEN;

/** A realtime session holds step by step; every step counts under the period limits like a chat call's hold. */
describe.each(dialects.filter((d) => d !== 'mysql'))('period limits of realtime sessions on %s', (dialect) => {
  const gw = useMoneyGateway<MockRealtime>(
    dialect,
    { redis: dialect === 'postgres', mock: startMockRealtime },
    async (g) => {
      await addChannel(g.root, { name: 'rt-period', key: 'rt-key', baseUrl: g.mock.url, models: MODEL });
      await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 2.5 }) });
      await g.root.call('PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify({ [MODEL]: 4 }) });
    },
  );

  it('a session ends with the limit named when its next hold step would pass the quota per day', async () => {
    const limit = 5_000;
    const { userId, key } = await fundedKey(gw, 1_000_000);
    expect((await gw.root.call('PUT', '/api/user/', { id: userId, quota_per_day: limit })).body.success).toBe(true);
    const c = realtimeClient(`${gw.base.replace('http', 'ws')}/v1/realtime?model=${MODEL}`, key);
    await c.until((e) => e.some((x) => x.type === 'session.created'));
    // 100 deltas worth 10,000 against a daily limit of 5,000 (and a balance of 1,000,000).
    c.send({ type: 'test.respond', audio: 100, audioBytes: DELTA_BYTES });
    const code = await c.closed;
    const error = c.events.find((e) => e.type === 'error') as
      { error?: { type?: string; code?: string; message?: string } } | undefined;
    expect(code).toBe(1008);
    expect(error?.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'period_limit_reached',
      message: expect.stringContaining('daily quota limit of this user reached'),
    });
    const delivered = receivedValue(c.events, PRICE);
    expect(c.count('response.audio.delta')).toBeLessThan(100);
    const money = await settledMoney(gw, userId);
    assertMoneyInvariant(1_000_000, delivered, money);
    expect(money.charged).toBe(delivered);
    expect(money.charged).toBeLessThanOrEqual(limit);
    // The counter ends at the charge.
    const usage = async () => {
      const res = await fetch(`${gw.base}/api/usage/token/`, { headers: { authorization: `Bearer ${key}` } });
      return ((await res.json()) as { data: { period_limits: PeriodRemaining[] } }).data.period_limits[0]!;
    };
    let day = await usage();
    for (let i = 0; i < 100 && day.used !== money.charged; i++) {
      await new Promise((r) => setTimeout(r, 20));
      day = await usage();
    }
    expect(day).toMatchObject({ level: 'user', period: 'day', limit, used: money.charged });
  });
});
