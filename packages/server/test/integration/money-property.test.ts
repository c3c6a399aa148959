import { BILLING_PREFERENCES } from '@tollway/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import {
  assertMoneyInvariant,
  budgetedKey,
  callSurface,
  deliveredValue,
  fundedKey,
  model,
  MONEY_BEHAVIOURS,
  settledMoney,
  useMoneyGateway,
  type MoneyCall,
  type MoneySurface,
  type MoneyVendorKind,
} from '../support/money-property.js';

/**
 * Issue 31's money invariant on the token-billed chat surfaces: whatever the balance, the answer sizes, the client's
 * caps, where the client cuts a stream, how many calls run at once and whether the upstream honours the cap it is
 * sent, Σ value delivered (what the client received, at the model's price) ≤ Σ charged ≤ starting balance. Where
 * the balance binds, the cap is clamped and the answer metered, so even an upstream that ignores the cap is held
 * to it; where it does not (the client's own cap fits the balance) and the upstream ignores that cap, the overage
 * is charged at settlement, and what a concurrent call spent meanwhile is a recorded shortfall, never a silent one.
 */
const RUNS = 4;
const MAX_BALANCE = 30_000;
const MAX_WORDS = 2_500;

const surfaces: { surface: MoneySurface; vendor: MoneyVendorKind; choices: boolean; streams: boolean[] }[] = [
  { surface: 'chat', vendor: 'openai', choices: true, streams: [false, true] },
  { surface: 'responses', vendor: 'openai', choices: false, streams: [false, true] },
  { surface: 'messages', vendor: 'anthropic', choices: false, streams: [false, true] },
  { surface: 'gemini', vendor: 'gemini', choices: true, streams: [false, true] },
];

const callArb = (vendor: MoneyVendorKind, choices: boolean, stream: boolean): fc.Arbitrary<MoneyCall> =>
  fc.record({
    model: fc.constantFrom(...MONEY_BEHAVIOURS).map((b) => model(vendor, b)),
    words: fc.integer({ min: 1, max: MAX_WORDS }),
    stream: fc.constant(stream),
    cap: fc.option(fc.integer({ min: 1, max: 3_000 }), { nil: undefined }),
    choices: choices ? fc.integer({ min: 1, max: 3 }) : fc.constant(1),
    cutAfter: stream ? fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }) : fc.constant(undefined),
  });

/** Ratios on SQLite and PostgreSQL + Redis; the same prices as a billing expression on SQLite (its own hold and meter). */
const variants = [
  ...dialects.filter((d) => d === 'sqlite' || d === 'postgres').map((d) => ({ dialect: d, pricing: 'ratio' as const })),
  ...dialects.filter((d) => d === 'sqlite').map((d) => ({ dialect: d, pricing: 'expr' as const })),
];

describe.each(variants)(
  'money property of the chat surfaces on $dialect, priced by $pricing',
  ({ dialect, pricing }) => {
    const gw = useMoneyGateway(dialect, { redis: dialect === 'postgres', pricing });

    for (const { surface, vendor, choices, streams } of surfaces) {
      for (const stream of streams) {
        it(
          `${surface} ${stream ? 'streamed' : 'plain'}: Σ delivered ≤ Σ charged ≤ balance`,
          { timeout: 60_000 },
          async () => {
            await fc.assert(
              fc.asyncProperty(
                fc.integer({ min: 0, max: MAX_BALANCE }),
                fc.array(callArb(vendor, choices, stream), { minLength: 1, maxLength: 5 }),
                async (balance, calls) => {
                  const { userId, key } = await fundedKey(gw, balance);
                  const received = await Promise.all(calls.map((c) => callSurface(gw, surface, key, c)));
                  const delivered = received.reduce((s, r) => s + deliveredValue(r), 0);
                  const ignored = calls.some((c) => c.model.includes('ignore'));
                  assertMoneyInvariant(balance, delivered, await settledMoney(gw, userId), ignored);
                },
              ),
              { numRuns: RUNS },
            );
          },
        );
      }
    }

    it(
      'an organization wallet under a budget (hard or soft, any limit): the same invariant, and spend ≤ a hard budget',
      { timeout: 60_000 },
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 0, max: MAX_BALANCE }),
            fc.integer({ min: 1, max: MAX_BALANCE }),
            fc.boolean(),
            fc.constantFrom(...surfaces),
            fc.boolean(),
            fc.array(fc.integer({ min: 1, max: MAX_WORDS }), { minLength: 1, maxLength: 6 }),
            async (balance, limit, hard, s, stream, sizes) => {
              const { userId, key } = await budgetedKey(gw, balance, { limit, hard });
              // Upstreams that honour the cap they are sent: the hold (cut to the budget's room) bounds the charge.
              const calls = sizes.map((words, i) => ({
                model: model(s.vendor, i % 2 ? 'honour' : 'honour-slow'),
                words,
                stream,
              }));
              const received = await Promise.all(calls.map((c) => callSurface(gw, s.surface, key, c)));
              const delivered = received.reduce((sum, r) => sum + deliveredValue(r), 0);
              const money = await settledMoney(gw, userId);
              assertMoneyInvariant(balance, delivered, money);
              if (hard) expect(money.charged).toBeLessThanOrEqual(limit);
            },
          ),
          { numRuns: RUNS },
        );
      },
    );

    it(
      'chat and messages with part of the money in a plan, under any billing preference: the same invariant',
      { timeout: 60_000 },
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 0, max: MAX_BALANCE }),
            fc.integer({ min: 0, max: MAX_BALANCE }),
            fc.constantFrom(...BILLING_PREFERENCES),
            fc.constantFrom(...surfaces.filter((s) => s.surface === 'chat' || s.surface === 'messages')),
            fc.boolean(),
            fc.array(fc.integer({ min: 1, max: MAX_WORDS }), { minLength: 1, maxLength: 5 }),
            async (balance, planQuota, preference, s, stream, sizes) => {
              const { userId, key } = await fundedKey(gw, balance, { quota: planQuota, preference });
              const calls = sizes.map((words, i) => ({
                model: model(s.vendor, MONEY_BEHAVIOURS[i % MONEY_BEHAVIOURS.length]!),
                words,
                stream,
              }));
              const received = await Promise.all(calls.map((c) => callSurface(gw, s.surface, key, c)));
              const delivered = received.reduce((sum, r) => sum + deliveredValue(r), 0);
              const ignored = calls.some((c) => c.model.includes('ignore'));
              assertMoneyInvariant(balance, delivered, await settledMoney(gw, userId), ignored);
            },
          ),
          { numRuns: RUNS },
        );
      },
    );
  },
);
