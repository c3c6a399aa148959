import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeQuota, dec, mul, roundToInt, type Price, type Usage } from '../src/index.js';
import { bigQuota } from '../src/pricing.js';

const ratio = (
  modelRatio: number,
  completionRatio = 1,
  groupRatio = 1,
  cacheRatio = 1,
  cacheCreationRatio = 1.25,
): Price => ({
  mode: 'ratio',
  modelRatio,
  completionRatio,
  cacheRatio,
  cacheCreationRatio,
  groupRatio,
});

describe('quota formula', () => {
  it.each<[string, Price, Usage, number, 'openai' | 'anthropic', number]>([
    ['ratio 1, 1000 in + 1000 out', ratio(1), { promptTokens: 1000, completionTokens: 1000 }, 500000, 'openai', 2000],
    [
      'gpt-4o-mini 0.075 × completion 4',
      ratio(0.075, 4),
      { promptTokens: 1000, completionTokens: 500 },
      500000,
      'openai',
      225,
    ],
    [
      'float trap 0.1+0.2 style: ratio 0.3 × 3 tokens',
      ratio(0.3),
      { promptTokens: 3, completionTokens: 0 },
      500000,
      'openai',
      1,
    ],
    ['half rounds away from zero (0.5 → 1)', ratio(0.5), { promptTokens: 1, completionTokens: 0 }, 500000, 'openai', 1],
    ['2.5 → 3', ratio(0.5), { promptTokens: 5, completionTokens: 0 }, 500000, 'openai', 3],
    ['2.45 → 2', ratio(0.35), { promptTokens: 7, completionTokens: 0 }, 500000, 'openai', 2],
    ['at least 1 when ratio is non-zero', ratio(0.001), { promptTokens: 1, completionTokens: 0 }, 500000, 'openai', 1],
    ['zero ratio stays free', ratio(0), { promptTokens: 1000, completionTokens: 1000 }, 500000, 'openai', 0],
    ['group ratio 1.5', ratio(1, 2, 1.5), { promptTokens: 100, completionTokens: 100 }, 500000, 'openai', 450],
    [
      'openai cache: cached inside prompt',
      ratio(1, 4, 1, 0.5),
      { promptTokens: 1000, completionTokens: 100, cachedTokens: 600 },
      500000,
      'openai',
      400 + 300 + 400,
    ],
    [
      'anthropic cache: cached outside input',
      ratio(1.5, 5, 1, 0.1, 1.25),
      { promptTokens: 100, completionTokens: 10, cachedTokens: 1000, cacheCreationTokens: 200 },
      500000,
      'anthropic',
      1.5 * (100 + 100 + 250 + 50),
    ],
    [
      'openai overlap clamps the uncached part at 0',
      ratio(1, 1, 1, 0.5, 1),
      { promptTokens: 100, completionTokens: 0, cachedTokens: 80, cacheCreationTokens: 40 },
      500000,
      'openai',
      80,
    ],
    [
      'fixed price $0.04 per call',
      { mode: 'price', modelPrice: 0.04, groupRatio: 1 },
      { promptTokens: 999, completionTokens: 999 },
      500000,
      'openai',
      20000,
    ],
    [
      'fixed price with group ratio 0.9',
      { mode: 'price', modelPrice: 0.1, groupRatio: 0.9 },
      { promptTokens: 0, completionTokens: 0 },
      500000,
      'openai',
      45000,
    ],
  ])('%s', (_label, price, usage, perUnit, semantic, expected) => {
    expect(computeQuota(price, usage, perUnit, semantic)).toBe(expected);
  });

  it('is exact where floating point is not', () => {
    // 0.1 × 3 in floats is 0.30000000000000004; 1.1 × 1.1 = 1.2100000000000002.
    expect(roundToInt(mul(mul(dec(0.1), dec(3)), dec(10)))).toBe(3n);
    expect(computeQuota(ratio(1.1, 1, 1.1), { promptTokens: 100, completionTokens: 0 }, 500000)).toBe(121);
    expect(computeQuota(ratio(0.0375), { promptTokens: 40, completionTokens: 0 }, 500000)).toBe(2);
  });
});

describe('the Number path of the quota formula', () => {
  // Ratios as operators type them: up to 8 decimals, from 0 to 10^6; some past any Number mantissa's exact range.
  const ratioValue = fc.oneof(
    fc.integer({ min: 0, max: 10 ** 9 }).map((n) => n / 10 ** 3),
    fc.integer({ min: 0, max: 10 ** 8 }).map((n) => n / 10 ** 8),
    fc.constantFrom(0, 1, 0.075, 1.1, 0.3, 1.25, 4, 1e6, 123456.789012),
  );
  const tokens = fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
  const usage = fc.record({
    promptTokens: tokens,
    completionTokens: tokens,
    cachedTokens: fc.option(tokens, { nil: undefined }),
    cacheCreationTokens: fc.option(tokens, { nil: undefined }),
  });
  const price = fc.oneof(
    fc.record({
      mode: fc.constant('ratio' as const),
      modelRatio: ratioValue,
      completionRatio: ratioValue,
      cacheRatio: ratioValue,
      cacheCreationRatio: ratioValue,
      groupRatio: ratioValue,
    }),
    fc.record({ mode: fc.constant('price' as const), modelPrice: ratioValue, groupRatio: ratioValue }),
  );
  const perUnit = fc.constantFrom(500_000, 1, 7, 1_000_000_000);

  it('gives the BigInt path’s quota for every price and usage (the larger ones through that path)', () => {
    fc.assert(
      fc.property(price, usage, perUnit, fc.constantFrom('openai' as const, 'anthropic' as const), (p, u, q, sem) => {
        expect(computeQuota(p, u, q, sem)).toBe(bigQuota(p, u, q, sem));
      }),
      { numRuns: 20_000 },
    );
  });

  it('rounds half away from zero and stays exact next to the edge of the Number range', () => {
    const one = { mode: 'ratio', modelRatio: 1, completionRatio: 1, cacheRatio: 1, cacheCreationRatio: 1 } as const;
    // (2^53 − 1) × 0.5 = 4503599627370495.5 → ...496; one token more leaves the Number range (BigInt path).
    const edge = { promptTokens: Number.MAX_SAFE_INTEGER, completionTokens: 0 };
    expect(computeQuota({ ...one, groupRatio: 0.5 }, edge, 1)).toBe(4503599627370496);
    expect(computeQuota({ ...one, groupRatio: 0.5 }, { ...edge, completionTokens: 1 }, 1)).toBe(4503599627370496);
    expect(computeQuota({ ...one, groupRatio: 0.25 }, { promptTokens: 6, completionTokens: 0 }, 1)).toBe(2);
    expect(computeQuota({ ...one, groupRatio: 0.25 }, { promptTokens: 5, completionTokens: 0 }, 1)).toBe(1);
  });
});
