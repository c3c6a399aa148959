import {
  dec,
  floorToInt,
  mul,
  type SubscriptionDurationUnit,
  type SubscriptionPlan,
  type SubscriptionResetPeriod,
} from '@tollway/shared';

/**
 * Pure wording helpers of the subscription screens: each returns an i18n key of the `subscriptions` namespace and
 * its values, so the words follow the language and the rules can be tested without a page.
 */
export interface Phrase {
  key: string;
  values?: Record<string, string | number>;
}

/** The units a span of seconds is written in, largest first. */
const SPAN_UNITS = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
] as const;

/** A number of seconds in the largest unit that divides it exactly (90000 → 25 hours, 172800 → 2 days). */
export function spanOf(seconds: number): Phrase {
  const s = Math.max(0, Math.trunc(seconds));
  for (const [unit, size] of SPAN_UNITS) {
    if (s >= size && s % size === 0) return { key: `span.${unit}`, values: { count: s / size } };
  }
  return { key: 'span.second', values: { count: s } };
}

type PlanDuration = Pick<SubscriptionPlan, 'duration_unit' | 'duration_value' | 'custom_seconds'>;

/** How long a plan lasts: "3 months", or a custom span. */
export function durationOf(plan: PlanDuration): Phrase {
  const unit: SubscriptionDurationUnit = plan.duration_unit;
  if (unit === 'custom') return spanOf(plan.custom_seconds);
  return { key: `span.${unit}`, values: { count: plan.duration_value } };
}

type PlanReset = Pick<SubscriptionPlan, 'quota_reset_period' | 'quota_reset_custom_seconds'>;

/** When a plan's quota returns to zero: never, daily, weekly, monthly, or every custom span (`span` to word first). */
export function resetOf(plan: PlanReset): Phrase & { span?: Phrase } {
  const period: SubscriptionResetPeriod = plan.quota_reset_period;
  if (period === 'custom') return { key: 'reset.every', span: spanOf(plan.quota_reset_custom_seconds) };
  return { key: `reset.${period}` };
}

/** A translate function bound to the `subscriptions` namespace. */
export type Translate = (key: string, values?: Record<string, string | number>) => string;

/** The words of a phrase (a reset "every" span is worded first and put in). */
export function wordsOf(t: Translate, phrase: Phrase & { span?: Phrase }): string {
  const values = { ...phrase.values };
  if (phrase.span) values.span = t(phrase.span.key, phrase.span.values);
  return t(phrase.key, values);
}

/** Decimals a price shows at least (cents) and at most (new-api's decimal(10,6)). */
const PRICE_MIN_DECIMALS = 2;
const PRICE_MAX_DECIMALS = 6;

/** A plan's price: "$9.90" in US dollars, else "9.90 EUR"; up to six decimals, never fewer than two. */
export function priceText(amount: number, currency: string): string {
  const fixed = amount.toFixed(PRICE_MAX_DECIMALS).replace(/0+$/, '');
  const [int = '0', frac = ''] = fixed.split('.');
  const text = `${int}.${frac.padEnd(PRICE_MIN_DECIMALS, '0')}`;
  const code = currency.trim().toUpperCase() || 'USD';
  return code === 'USD' ? `$${text}` : `${text} ${code}`;
}

/** Whether a price fits new-api's six decimals (9.1234567 does not). */
export function hasPriceScale(amount: number): boolean {
  const scaled = amount * 10 ** PRICE_MAX_DECIMALS;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

/** The wallet quota a plan costs when paid from the balance: price × QuotaPerUnit, rounded up (exact decimals). */
export function balanceCost(priceAmount: number, quotaPerUnit: number): number {
  if (!(priceAmount > 0) || !(quotaPerUnit > 0)) return 0;
  return Number(floorToInt(mul(dec(priceAmount), dec(quotaPerUnit)), true));
}

/** The share of a subscription's quota used, 0–100 (an unlimited one, total 0, reads 0). */
export function usedPercent(used: number, total: number): number {
  if (total <= 0) return 0;
  const percent = (Math.max(0, used) / total) * 100;
  return Math.min(100, Math.round(percent * 10) / 10);
}

/** Ways a plan can be paid: the plan's settings and what the server has switched on. */
export interface PayOptions {
  enableOnlineTopup: boolean;
  enableStripe: boolean;
  enableCreem: boolean;
  /** Epay's methods from the top-up info (Stripe's and Creem's entries are left out). */
  payMethods: { type: string; name: string }[];
}

export type PlanPayMethod =
  { kind: 'balance' } | { kind: 'stripe' } | { kind: 'creem' } | { kind: 'epay'; type: string; name: string };

/** The smallest price Epay is asked to charge. */
const EPAY_MIN_PRICE = 0.01;

/** Card payments listed among top-up methods that are not Epay's. */
const CARD_METHODS = new Set(['stripe', 'creem']);

/** The payment methods a plan offers, in the order the buy dialog shows them. */
export function planPayMethods(
  plan: Pick<SubscriptionPlan, 'allow_balance_pay' | 'stripe_price_id' | 'creem_product_id' | 'price_amount'>,
  opts: PayOptions,
): PlanPayMethod[] {
  const methods: PlanPayMethod[] = [];
  if (plan.allow_balance_pay) methods.push({ kind: 'balance' });
  if (plan.stripe_price_id.trim() && opts.enableStripe) methods.push({ kind: 'stripe' });
  if (plan.creem_product_id.trim() && opts.enableCreem) methods.push({ kind: 'creem' });
  // Epay takes no payment below a cent (new-api's rule).
  if (opts.enableOnlineTopup && plan.price_amount >= EPAY_MIN_PRICE) {
    for (const m of opts.payMethods)
      if (!CARD_METHODS.has(m.type)) methods.push({ kind: 'epay', type: m.type, name: m.name });
  }
  return methods;
}
