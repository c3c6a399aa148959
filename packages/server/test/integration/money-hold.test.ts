import { countTokens } from 'gpt-tokenizer';
import { computeQuota } from '@tollway/shared';
import { describe, expect, it, vi } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import type { DialectName } from '../../src/db/connect.js';
import { dialects } from '../support/databases.js';
import {
  assertMoneyInvariant,
  callSurface,
  deliveredValue,
  fundedKey,
  model,
  MONEY_PRICE,
  settledMoney,
  useMoneyGateway,
  type MoneyBehaviour,
} from '../support/money-property.js';

/** Issue 31 hole 1: 10 parallel calls without max_tokens on a balance of 2,000, each answer worth 100,000 uncapped. */
const QUOTA = 2_000;
const PARALLEL = 10;
/** 10,000 output tokens at 10 quota each: 100,000 per answer. */
const WORDS = 10_000;

async function counterValue(name: string): Promise<number> {
  const m = metrics.getSingleMetric(name);
  if (!m) return 0;
  return (await m.get()).values.reduce((s, v) => s + v.value, 0);
}

const modes: { name: string; dialect: DialectName; redis: boolean }[] = [
  ...(dialects.includes('sqlite') ? [{ name: 'sqlite', dialect: 'sqlite' as const, redis: false }] : []),
  ...(dialects.includes('postgres') ? [{ name: 'postgres + redis', dialect: 'postgres' as const, redis: true }] : []),
];

describe.each(modes)('service past the balance on $name', ({ dialect, redis }) => {
  const gw = useMoneyGateway(dialect, { redis });

  const burst = async (behaviour: MoneyBehaviour, stream: boolean) => {
    const { userId, key } = await fundedKey(gw, QUOTA);
    const received = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        callSurface(gw, 'chat', key, { model: model('openai', behaviour), words: WORDS, stream }),
      ),
    );
    const delivered = received.reduce((s, r) => s + deliveredValue(r), 0);
    return { received, delivered, money: await settledMoney(gw, userId) };
  };

  for (const stream of [false, true]) {
    it(`an upstream that honours the cap: ${stream ? 'streamed' : 'plain'} calls are clamped to the balance, nothing forgiven`, async () => {
      const { received, delivered, money } = await burst('honour', stream);
      assertMoneyInvariant(QUOTA, delivered, money);
      expect(money.shortfall).toBe(0);
      expect(received.some((r) => r.status === 200 && r.outputTokens > 0)).toBe(true);
      // Every refusal is the quota's.
      for (const r of received) expect([200, 403]).toContain(r.status);
    });
  }

  it('an upstream that ignores the cap in a stream: the stream is cut where the hold is spent, counted in the metric', async () => {
    const exceeded = await counterValue('tollway_relay_output_cap_exceeded_total');
    const { delivered, money } = await burst('ignore', true);
    assertMoneyInvariant(QUOTA, delivered, money);
    expect(await counterValue('tollway_relay_output_cap_exceeded_total')).toBeGreaterThan(exceeded);
  });

  it('an upstream that ignores the cap in a plain answer: the answer is not delivered past the hold', async () => {
    const exceeded = await counterValue('tollway_relay_output_cap_exceeded_total');
    const { delivered, money } = await burst('ignore', false);
    assertMoneyInvariant(QUOTA, delivered, money);
    expect(await counterValue('tollway_relay_output_cap_exceeded_total')).toBeGreaterThan(exceeded);
  });

  it('a bill the balance cannot cover (the upstream ignored a cap the balance did cover) is a counted, logged shortfall', async () => {
    const { userId, key } = await fundedKey(gw, QUOTA);
    const error = vi.spyOn(gw.t.runtime.ctx.log, 'error');
    const quotaBefore = await counterValue('tollway_charge_shortfall_quota_total');
    const callsBefore = await counterValue('tollway_charge_shortfall_total');
    // A cap of 10 fits the balance, so it is sent as it is; the upstream answers 1,000 words (10,000 quota) anyway.
    const r = await callSurface(gw, 'chat', key, {
      model: model('openai', 'ignore'),
      words: 1_000,
      stream: false,
      cap: 10,
    });
    expect(r.outputTokens).toBe(1_000);
    const money = await settledMoney(gw, userId);
    expect(money.charged).toBe(QUOTA);
    expect(money.balance).toBe(0);
    expect(money.shortfall).toBe(deliveredValue(r) - QUOTA);
    expect(await counterValue('tollway_charge_shortfall_total')).toBe(callsBefore + 1);
    expect(await counterValue('tollway_charge_shortfall_quota_total')).toBe(quotaBefore + money.shortfall);
    expect(
      error.mock.calls.some(
        ([detail, msg]) =>
          String(msg).includes('charge shortfall') && (detail as { shortfall?: number }).shortfall === money.shortfall,
      ),
    ).toBe(true);
    error.mockRestore();
  });
  it('a prompt of rare characters (a token per byte, three times the estimate) is held at its count, not the estimate', async () => {
    const content = `words:5 ${'𒀀'.repeat(300)}`;
    const vendorPrompt = countTokens(content);
    // What the vendor bills for the prompt and 5 words: more than the estimate (a token per 3 bytes) says.
    const cost = computeQuota(MONEY_PRICE, { promptTokens: vendorPrompt, completionTokens: 5 }, 500_000);
    const call = (key: string) =>
      fetch(`${gw.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: model('openai', 'honour'), messages: [{ role: 'user', content }] }),
      });
    // A balance between the estimate's cost and the prompt's: refused for quota, nothing served or charged.
    const poor = await fundedKey(gw, Math.floor(cost / 2));
    const refused = await call(poor.key);
    expect(refused.status).toBe(403);
    await refused.text();
    expect((await settledMoney(gw, poor.userId)).charged).toBe(0);
    // Enough for the prompt and the answer: served and charged in full, no shortfall.
    const rich = await fundedKey(gw, cost + 50);
    const served = await call(rich.key);
    expect(served.status).toBe(200);
    await served.text();
    const money = await settledMoney(gw, rich.userId);
    expect(money.shortfall).toBe(0);
    expect(money.charged).toBeGreaterThanOrEqual(cost);
    expect(money.charged).toBeLessThanOrEqual(cost + 50);
  });
});
