import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costCurrency, formatCost, quotaToUsd, USD_COST } from '../src/index.js';

describe('the cost receipt currency (quota.ts)', () => {
  it('follows the display type: USD, CNY at USDExchangeRate, a custom currency at its rate; tokens show dollars', () => {
    expect(costCurrency('USD', 7.3, '¤', 2)).toEqual(USD_COST);
    expect(costCurrency('TOKENS', 7.3, '¤', 2)).toEqual(USD_COST);
    expect(costCurrency('CNY', 7.3, '¤', 2)).toEqual({ code: 'CNY', perUsd: 7.3 });
    expect(costCurrency('CUSTOM', 7.3, 'PTS', 2)).toEqual({ code: 'PTS', perUsd: 2 });
    // A header carries visible ASCII only.
    expect(costCurrency('CUSTOM', 7.3, '¤', 2)).toEqual({ code: '%C2%A4', perUsd: 2 });
    expect(costCurrency('CUSTOM', 7.3, '', 2).code).toBe('CUSTOM');
  });

  it('formats an amount without exponent or trailing zeros', () => {
    expect(formatCost(220, 500_000, USD_COST)).toBe('0.00044 USD');
    expect(formatCost(1, 500_000, USD_COST)).toBe('0.000002 USD');
    expect(formatCost(500_000, 500_000, USD_COST)).toBe('1 USD');
    expect(formatCost(0, 500_000, USD_COST)).toBe('0 USD');
    expect(formatCost(1_000, 500_000, { code: 'CNY', perUsd: 7.3 })).toBe('0.0146 CNY');
    expect(quotaToUsd(220, 500_000)).toBe(0.00044);
  });

  it('a dollar amount is the quota over QuotaPerUnit, and its text reads back as that number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), (quota) => {
        const usd = quotaToUsd(quota, 500_000);
        expect(usd).toBeCloseTo(quota / 500_000, 9);
        const text = formatCost(quota, 500_000, USD_COST);
        expect(text).toMatch(/^\d+(\.\d*[1-9])? USD$/);
        expect(Number(text.split(' ')[0])).toBe(usd);
      }),
    );
  });
});
