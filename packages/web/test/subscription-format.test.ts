import { describe, expect, it } from 'vitest';
import {
  balanceCost,
  durationOf,
  hasPriceScale,
  planPayMethods,
  priceText,
  resetOf,
  spanOf,
  usedPercent,
  wordsOf,
  type PayOptions,
} from '../src/lib/subscription-format';
import texts from '../src/features/subscriptions/i18n';
import { formDefaults, planResolver, type PlanForm } from '../src/features/subscriptions/schema';

/** A translate function that shows the key and its values, so the tests see what would be worded. */
const echo = (key: string, values?: Record<string, unknown>) =>
  values
    ? `${key}(${Object.entries(values)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(',')})`
    : key;

describe('subscription wording helpers', () => {
  it('writes a span in the largest unit that divides it exactly', () => {
    expect(spanOf(172_800)).toEqual({ key: 'span.day', values: { count: 2 } });
    expect(spanOf(90_000)).toEqual({ key: 'span.hour', values: { count: 25 } });
    expect(spanOf(5400)).toEqual({ key: 'span.minute', values: { count: 90 } });
    expect(spanOf(61)).toEqual({ key: 'span.second', values: { count: 61 } });
    expect(spanOf(0)).toEqual({ key: 'span.second', values: { count: 0 } });
  });

  it('words a plan duration by its unit, a custom one by its seconds', () => {
    expect(durationOf({ duration_unit: 'month', duration_value: 3, custom_seconds: 0 })).toEqual({
      key: 'span.month',
      values: { count: 3 },
    });
    expect(durationOf({ duration_unit: 'custom', duration_value: 1, custom_seconds: 604_800 })).toEqual({
      key: 'span.day',
      values: { count: 7 },
    });
  });

  it('words the reset period, a custom one as "every" a span', () => {
    expect(resetOf({ quota_reset_period: 'weekly', quota_reset_custom_seconds: 0 })).toEqual({ key: 'reset.weekly' });
    const custom = resetOf({ quota_reset_period: 'custom', quota_reset_custom_seconds: 7200 });
    expect(wordsOf(echo, custom)).toBe('reset.every(span=span.hour(count=2))');
  });

  it('shows a price with two to six decimals, dollars with a sign, other currencies by code', () => {
    expect(priceText(10, 'USD')).toBe('$10.00');
    expect(priceText(9.5, 'USD')).toBe('$9.50');
    expect(priceText(1.2345, 'usd')).toBe('$1.2345');
    expect(priceText(0.000001, 'USD')).toBe('$0.000001');
    expect(priceText(12, 'EUR')).toBe('12.00 EUR');
    expect(hasPriceScale(9.123456)).toBe(true);
    expect(hasPriceScale(9.1234567)).toBe(false);
  });

  it('costs price × QuotaPerUnit from the wallet, rounded up, without float error', () => {
    expect(balanceCost(9.9, 500_000)).toBe(4_950_000);
    // 0.1 × 3 is 0.30000000000000004 in floating point; the cost stays exactly 0.3 × 500000.
    expect(balanceCost(0.3, 500_000)).toBe(150_000);
    expect(balanceCost(0.000001, 500_000)).toBe(1);
    expect(balanceCost(0.0000011, 500_000)).toBe(1);
    expect(balanceCost(1.000001, 3)).toBe(4);
    expect(balanceCost(0, 500_000)).toBe(0);
  });

  it('reads the used share of a limited subscription, 0 for an unlimited one, capped at 100', () => {
    expect(usedPercent(250, 1000)).toBe(25);
    expect(usedPercent(1, 3)).toBe(33.3);
    expect(usedPercent(1500, 1000)).toBe(100);
    expect(usedPercent(500, 0)).toBe(0);
  });

  it('offers the methods the plan allows and the site has switched on', () => {
    const plan = { allow_balance_pay: true, stripe_price_id: 'price_1', creem_product_id: '', price_amount: 5 };
    const on: PayOptions = {
      enableOnlineTopup: true,
      enableStripe: true,
      enableCreem: true,
      payMethods: [
        { type: 'zfb', name: 'Alipay' },
        { type: 'stripe', name: 'Stripe' },
        { type: 'wx', name: 'WeChat' },
      ],
    };
    expect(planPayMethods(plan, on)).toEqual([
      { kind: 'balance' },
      { kind: 'stripe' },
      { kind: 'epay', type: 'zfb', name: 'Alipay' },
      { kind: 'epay', type: 'wx', name: 'WeChat' },
    ]);
    const off: PayOptions = { enableOnlineTopup: false, enableStripe: false, enableCreem: true, payMethods: [] };
    expect(planPayMethods({ ...plan, allow_balance_pay: false, creem_product_id: 'prod_1' }, off)).toEqual([
      { kind: 'creem' },
    ]);
    // Below a cent Epay is not offered.
    expect(planPayMethods({ ...plan, allow_balance_pay: false, stripe_price_id: '', price_amount: 0.001 }, on)).toEqual(
      [],
    );
  });
});

describe('the plan editor resolver', () => {
  const resolve = (v: Partial<PlanForm>) =>
    planResolver(echo)({ ...formDefaults(), title: 'Pro', ...v }, undefined, {
      fields: {},
      shouldUseNativeValidation: false,
    });

  it('passes a valid plan through the shared schema', async () => {
    const r = await resolve({ price_amount: 9.9, total_amount: 5_000_000, quota_reset_period: 'daily' });
    expect(r.errors).toEqual({});
    expect(r.values).toMatchObject({ title: 'Pro', price_amount: 9.9, total_amount: 5_000_000, currency: 'USD' });
  });

  it('says which field is wrong, in the viewer’s words', async () => {
    const r = await resolve({
      title: ' ',
      price_amount: 10_000,
      duration_unit: 'custom',
      custom_seconds: 0,
      quota_reset_period: 'custom',
      quota_reset_custom_seconds: null,
      total_amount: null,
    });
    expect(r.values).toEqual({});
    expect(Object.fromEntries(Object.entries(r.errors).map(([k, e]) => [k, e?.message]))).toEqual({
      title: 'subscriptions:validation.title(max=128)',
      price_amount: 'subscriptions:validation.price(max=9999)',
      custom_seconds: 'subscriptions:validation.customSeconds',
      quota_reset_custom_seconds: 'subscriptions:validation.required',
      total_amount: 'subscriptions:validation.required',
    });
  });

  it('refuses a price past six decimals and an empty duration', async () => {
    const r = await resolve({ price_amount: 1.0000001, duration_value: null });
    expect(r.errors.price_amount?.message).toBe('subscriptions:validation.priceScale');
    expect(r.errors.duration_value?.message).toBe('subscriptions:validation.required');
  });
});

/** Every key of a text tree, plural forms folded to their base ("day_one" → "day"). */
function keysOf(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [`${prefix}${k.replace(/_(one|other)$/, '')}`] : keysOf(v as object, `${prefix}${k}.`),
  );
}

describe('subscription texts', () => {
  it('has the same keys in zh and en', () => {
    expect([...new Set(keysOf(texts.en))].sort()).toEqual([...new Set(keysOf(texts.zh))].sort());
  });
});
