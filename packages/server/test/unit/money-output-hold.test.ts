import fc from 'fast-check';
import { computeQuota, type RatioPrice } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { budgetOf, planHold, UNCAPPED_OUTPUT_HOLD_TOKENS } from '../../src/relay/billing/output-hold.js';
import { openAIChat } from '../../src/relay/providers/openai/chat.js';
import type { InboundCall } from '../../src/relay/pipeline/types.js';

const QUOTA_PER_UNIT = 500_000;

const call = (maxTokens: number, n: number): InboundCall => ({
  format: openAIChat,
  openaiEndpoint: 'chat',
  body: n > 1 ? { n } : {},
  model: 'm',
  stream: false,
  includeUsage: false,
  maxTokens,
  bytes: 100,
});

const priceArb = fc.record({
  mode: fc.constant('ratio' as const),
  modelRatio: fc.double({ min: 0.01, max: 50, noNaN: true }),
  completionRatio: fc.double({ min: 0.1, max: 8, noNaN: true }),
  cacheRatio: fc.constant(1),
  cacheCreationRatio: fc.constant(1),
  groupRatio: fc.double({ min: 0.1, max: 3, noNaN: true }),
}) as fc.Arbitrary<RatioPrice>;

describe('the output a hold affords', () => {
  it('the cap sent upstream is the most output whose bill fits in what was held, and the minimum always fits one token per choice', () => {
    fc.assert(
      fc.property(
        priceArb,
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (price, prompt, cap, n, balance) => {
          const plan = planHold(price, prompt, call(cap, n), QUOTA_PER_UNIT, 500);
          expect(plan.metered).toBe(true);
          const perChoice = cap || UNCAPPED_OUTPUT_HOLD_TOKENS;
          expect(plan.amount).toBe(
            computeQuota(price, { promptTokens: prompt, completionTokens: perChoice * n }, QUOTA_PER_UNIT),
          );
          expect(plan.minimum).toBeGreaterThanOrEqual(
            Math.min(plan.amount, computeQuota(price, { promptTokens: prompt, completionTokens: n }, QUOTA_PER_UNIT)),
          );
          expect(plan.minimum).toBeLessThanOrEqual(plan.amount);
          // What the ledger would hold: up to the amount, refused below the minimum.
          const held = Math.min(plan.amount, balance);
          if (held < plan.minimum) return;
          const budget = budgetOf(plan, held, QUOTA_PER_UNIT);
          if (held >= plan.amount) {
            expect(budget).toEqual({ cap: undefined, tokens: Infinity });
            return;
          }
          const bill = (tokens: number) =>
            computeQuota(price, { promptTokens: prompt, completionTokens: tokens * n }, QUOTA_PER_UNIT);
          expect(budget.cap).toBeGreaterThanOrEqual(1);
          expect(budget.cap).toBeLessThan(perChoice);
          expect(budget.tokens).toBe(budget.cap! * n);
          expect(bill(budget.cap!)).toBeLessThanOrEqual(held);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('calls without token output and fixed-price calls are held as before and never metered', () => {
    const price: RatioPrice = {
      mode: 'ratio',
      modelRatio: 1,
      completionRatio: 1,
      cacheRatio: 1,
      cacheCreationRatio: 1,
      groupRatio: 1,
    };
    const embed = { ...call(0, 1), openaiEndpoint: 'embeddings' as const };
    expect(planHold(price, 10, embed, QUOTA_PER_UNIT, 500)).toMatchObject({
      amount: 510,
      minimum: 510,
      metered: false,
    });
    const fixed = planHold({ mode: 'price', modelPrice: 0.01, groupRatio: 1 }, 10, call(0, 1), QUOTA_PER_UNIT, 500);
    expect(fixed).toMatchObject({ amount: 5_000, minimum: 5_000, metered: false });
    expect(budgetOf(fixed, 5_000, QUOTA_PER_UNIT)).toEqual({ cap: undefined, tokens: Infinity });
  });
});
