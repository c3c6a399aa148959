import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BILLING_EXPR_MAX_LENGTH,
  billingExprProblem,
  compileBillingExpr,
  computeQuota,
  exprPrice,
  exprQuota,
  mul,
  dec,
  type Dec,
  type RatioPrice,
} from '../src/index.js';

const PER_UNIT = 500_000;
/** 2026-12-04 03:30 UTC: 11:30 in Shanghai, 22:30 the day before in New York. */
const AT = Date.UTC(2026, 11, 4, 3, 30);

const quota = (
  text: string,
  usage: Parameters<typeof exprQuota>[1],
  semantic: 'openai' | 'anthropic' = 'openai',
  request?: Parameters<typeof exprPrice>[3],
  groupRatio = 1,
) => exprQuota(exprPrice(text, groupRatio, AT, request), usage, PER_UNIT, semantic);

const decText = (d: Dec): string => {
  const digits = d.m.toString().padStart(d.s + 1, '0');
  return d.s === 0 ? digits : `${digits.slice(0, -d.s)}.${digits.slice(-d.s)}`;
};

describe('billing expressions (new-api tiered_expr)', () => {
  it('prices new-api documented expressions exactly, cache tokens out of p only when priced on their own', () => {
    // 800 uncached × $2.5 + 500 × $15 + 200 cached × $0.25 = 9,550 $/1M·tokens → $0.00955 → 4,775 quota.
    const usage = { promptTokens: 1000, completionTokens: 500, cachedTokens: 200 };
    expect(quota('tier("base", p * 2.5 + c * 15 + cr * 0.25)', usage)).toEqual({ quota: 4775, tier: 'base' });
    // Without cr the cached tokens stay in p at $2.5: 1000 × 2.5 + 500 × 15 = 10,000 → 5,000 quota.
    expect(quota('tier("base", p * 2.5 + c * 15)', usage).quota).toBe(5000);
    // Anthropic-style usage counts cache outside input_tokens: unpriced cache reads are billed at p's price.
    const anthropic = { promptTokens: 800, completionTokens: 500, cachedTokens: 200 };
    expect(quota('p * 2.5 + c * 15', anthropic, 'anthropic').quota).toBe(5000);
    expect(quota('p * 2.5 + c * 15 + cr * 0.25', anthropic, 'anthropic').quota).toBe(4775);
    // The v1: prefix new-api may write, and the group ratio.
    expect(quota('v1:p * 2.5 + c * 15', usage, 'openai', undefined, 0.5).quota).toBe(2500);
  });

  it('picks a tier by the whole input length, cache included', () => {
    const claude =
      'len <= 200000 ? tier("standard", p * 3 + c * 15 + cr * 0.3 + cc * 3.75) : tier("long_context", p * 6 + c * 22.5 + cr * 0.6 + cc * 7.5)';
    expect(quota(claude, { promptTokens: 200_000, completionTokens: 0 })).toEqual({ quota: 300_000, tier: 'standard' });
    // 50k text + 250k read from cache (Anthropic semantics): len 300k, the long-context tier.
    const long = quota(claude, { promptTokens: 50_000, completionTokens: 1000, cachedTokens: 250_000 }, 'anthropic');
    expect(long.tier).toBe('long_context');
    // (50,000 × 6 + 1,000 × 22.5 + 250,000 × 0.6) / 10^6 × 500,000 = 236,250.
    expect(long.quota).toBe(236_250);
  });

  it('applies the request rules new-api console writes: params, headers and time windows', () => {
    const base = 'tier("base", p * 5 + c * 25)';
    const rules =
      '(param("service_tier") == "priority" ? 2 : 1) * (has(header("anthropic-beta"), "fast-mode") ? 6 : 1) * (hour("Asia/Shanghai") >= 0 && hour("Asia/Shanghai") < 8 ? 0.5 : 1)';
    const text = `(${base}) * ${rules}`;
    const usage = { promptTokens: 1000, completionTokens: 100 };
    // 1000 × 5 + 100 × 25 = 7,500 → 3,750 quota; 11:30 in Shanghai is outside the night window.
    expect(quota(text, usage).quota).toBe(3750);
    expect(quota(text, usage, 'openai', { headers: {}, body: { service_tier: 'priority' } }).quota).toBe(7500);
    expect(
      quota(text, usage, 'openai', { headers: { 'anthropic-beta': 'fast-mode-2026-02-01' }, body: {} }).quota,
    ).toBe(22_500);
    const night = `(${base}) * (hour("America/New_York") >= 22 || hour("America/New_York") < 6 ? 0.5 : 1)`;
    expect(quota(night, usage).quota).toBe(1875);
    expect(
      quota('p * (param("messages.#") > 20 ? 2 : 1)', usage, 'openai', { headers: {}, body: { messages: [1, 2] } })
        .quota,
    ).toBe(500);
  });

  it('equals the ratio price it restates, exactly (ratio 1 = $2 per 1M tokens)', () => {
    const decimal = fc.integer({ min: 1, max: 100_000 }).map((n) => ({ n, text: decText({ m: BigInt(n), s: 3 }) }));
    fc.assert(
      fc.property(
        decimal,
        decimal,
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        (r, k, p, c) => {
          const ratio: RatioPrice = {
            mode: 'ratio',
            modelRatio: Number(r.text),
            completionRatio: Number(k.text),
            cacheRatio: 1,
            cacheCreationRatio: 1,
            groupRatio: 1,
          };
          const input = decText(mul(dec(2), dec(r.text)));
          const output = decText(mul(mul(dec(2), dec(r.text)), dec(k.text)));
          const usage = { promptTokens: p, completionTokens: c };
          // No tokens: the ratio path's floor of 1 quota does not apply to an expression (nothing was used).
          fc.pre(p + c > 0);
          expect(quota(`p * ${input} + c * ${output}`, usage).quota).toBe(computeQuota(ratio, usage, PER_UNIT));
        },
      ),
    );
  });

  it('refuses on save what does not parse or fails, naming what and where', () => {
    expect(billingExprProblem('p * 2 + c * 8')).toBeUndefined();
    expect(billingExprProblem('p * 2 +')).toMatch(/ends too early/);
    expect(billingExprProblem('q * 2')).toBe('unknown variable q');
    expect(billingExprProblem('exec("rm")')).toMatch(/unknown function exec/);
    expect(billingExprProblem('p * (hour("Mars/Olympus") < 8 ? 1 : 2)')).toMatch(/unknown time zone/);
    expect(billingExprProblem('"free"')).toMatch(/must give a number/);
    expect(billingExprProblem('p * 2 - c * 8')).toMatch(/negative/);
    expect(billingExprProblem('p / (c - c)')).toMatch(/division by zero/);
    expect(billingExprProblem('p * "2"')).toMatch(/needs a number/);
    expect(billingExprProblem('p matches "x"')).toMatch(/not supported/);
    expect(billingExprProblem('constructor.prototype')).toMatch(/unexpected character|unknown variable/);
    expect(billingExprProblem('p'.padEnd(BILLING_EXPR_MAX_LENGTH + 1, ' '))).toMatch(/longer than/);
    expect(billingExprProblem(`${'('.repeat(100)}p${')'.repeat(100)}`)).toMatch(/nested more than/);
    expect(billingExprProblem(Array.from({ length: 1500 }, () => 'p').join(' + '))).toMatch(/more than 2000 parts/);
    expect(billingExprProblem('p ** 100')).toMatch(/whole exponent/);
  });

  it('never throws anything but a BillingExprError for any input text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = billingExprProblem(text);
        expect(r === undefined || typeof r === 'string').toBe(true);
      }),
    );
    expect(compileBillingExpr('p * 2').uses.has('p')).toBe(true);
  });
});
