import fc from 'fast-check';
import { BILLING_PREFERENCES, type Price } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';
import { assertMoneyInvariant, fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';
import { realtimeClient, receivedValue } from '../support/realtime-client.js';

const MODEL = 'rt-property';
/** 2 × 5: ten quota per output token, two per input token. */
const PRICE: Price = {
  mode: 'ratio',
  modelRatio: 2,
  completionRatio: 5,
  cacheRatio: 1,
  cacheCreationRatio: 1,
  groupRatio: 1,
};
const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);

/** One scripted response of a session, and where (if anywhere) the client hangs up during it. */
const response = fc.record({
  audio: fc.integer({ min: 0, max: 30 }),
  audioBytes: fc.integer({ min: 1, max: 24_000 }),
  text: fc.array(fc.constantFrom(' alpha', ' beta', ' gamma delta'), { maxLength: 6 }),
  inputTokens: fc.integer({ min: 0, max: 800 }),
  usage: fc.boolean(),
  /** Hang up after this many deltas: with the upstream holding the rest back, or while it streams on. */
  cut: fc.option(fc.record({ after: fc.integer({ min: 0, max: 30 }), held: fc.boolean() }), { nil: undefined }),
});
const session = fc.array(response, { minLength: 1, maxLength: 3 });
type Session = typeof session extends fc.Arbitrary<infer T> ? T : never;

/** A counterexample of CI (stop 43): the first session's unit settled 10 quota short of what it delivered. */
const RACED_SESSIONS: Session[] = [
  [{ audio: 11, audioBytes: 10_991, text: [], inputTokens: 255, usage: false, cut: { after: 12, held: true } }],
  [{ audio: 29, audioBytes: 10_626, text: [' beta'], inputTokens: 494, usage: false, cut: { after: 16, held: false } }],
];

/** Issue 31: Σ value delivered ≤ Σ charged ≤ starting balance, for random realtime sessions run side by side. */
describe.each(dialects.filter((d) => d !== 'mysql'))('realtime money property on %s', (dialect) => {
  const gw = useMoneyGateway<MockRealtime>(
    dialect,
    { redis: dialect === 'postgres', mock: startMockRealtime },
    async (g) => {
      await addChannel(g.root, { name: 'rt-property', key: 'rt-key', baseUrl: g.mock.url, models: MODEL });
      await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 2 }) });
      await g.root.call('PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify({ [MODEL]: 5 }) });
    },
  );

  /** Runs one session's responses in order until one is cut or the gateway ends it; what the client received. */
  async function run(key: string, responses: Session) {
    const c = realtimeClient(`${gw.base.replace('http', 'ws')}/v1/realtime?model=${MODEL}`, key);
    if (!(await c.until((e) => e.some((x) => x.type === 'session.created')))) return c.events;
    for (const r of responses) {
      const deltas = r.audio + r.text.length;
      const before = c.count('response.audio.delta') + c.count('response.text.delta');
      const delivered = () => c.count('response.audio.delta') + c.count('response.text.delta') - before;
      const cutAt = r.cut && r.cut.after < deltas ? r.cut : undefined;
      const done = c.count('response.done');
      c.send({
        type: 'test.respond',
        audio: r.audio,
        audioBytes: r.audioBytes,
        text: r.text,
        inputTokens: r.inputTokens,
        usage: r.usage,
        holdAfter: cutAt?.held ? cutAt.after : undefined,
      });
      if (cutAt) {
        if (await c.until(() => delivered() >= cutAt.after)) c.ws.close();
        await c.closed;
        return c.events;
      }
      if (!(await c.until(() => c.count('response.done') > done))) return c.events;
    }
    c.ws.close();
    await c.closed;
    return c.events;
  }

  it('never delivers more than it charges, never charges more than the balance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30_000 }),
        fc.array(session, { minLength: 1, maxLength: 3 }),
        // Part of the money may sit in a subscription plan (a session's holds then grow on the plan).
        fc.integer({ min: 0, max: 30_000 }),
        fc.constantFrom(...BILLING_PREFERENCES),
        async (start, sessions, planQuota, preference) => {
          const { userId, key } = await fundedKey(gw, start, { quota: planQuota, preference });
          const received = await Promise.all(sessions.map((s) => run(key, s)));
          const delivered = received.reduce((n, events) => n + receivedValue(events, PRICE), 0);
          const money = await settledMoney(gw, userId);
          // A response's input is reported only in its response.done: a balance that cannot hold it leaves a shortfall
          // (recorded, counted and logged) like an upstream past its cap, and that response.done is not delivered:
          // what the client received is still within the charge.
          assertMoneyInvariant(start, delivered, money, true);
          expect(delivered).toBeLessThanOrEqual(money.charged);
        },
      ),
      // Two sessions on one balance where releasing a unit's extra holds before its charge let the other take them.
      { numRuns: RUNS, examples: [[1391, RACED_SESSIONS, 0, 'subscription_first']] },
    );
  }, 240_000);
});
