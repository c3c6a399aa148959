import { z } from 'zod';
import { dec, floorToInt, mul, roundToInt } from '../decimal.js';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';

/**
 * Subscription plans (new-api's `/api/subscription/*`): the shapes its console sends and reads. A plan is a quota
 * pool per period (`total_amount`, 0 unlimited) that relay calls draw from before or instead of the wallet, as the
 * user's billing preference says.
 */
export const SUBSCRIPTION_DURATION_UNITS = ['year', 'month', 'day', 'hour', 'custom'] as const;
export type SubscriptionDurationUnit = (typeof SUBSCRIPTION_DURATION_UNITS)[number];

export const SUBSCRIPTION_RESET_PERIODS = ['never', 'daily', 'weekly', 'monthly', 'custom'] as const;
export type SubscriptionResetPeriod = (typeof SUBSCRIPTION_RESET_PERIODS)[number];

/** What a relay call draws from: plan then wallet (default), wallet then plan, or only one of them. */
export const BILLING_PREFERENCES = ['subscription_first', 'wallet_first', 'subscription_only', 'wallet_only'] as const;
export type BillingPreference = (typeof BILLING_PREFERENCES)[number];
export const DEFAULT_BILLING_PREFERENCE: BillingPreference = 'subscription_first';

export const USER_SUBSCRIPTION_STATUSES = ['active', 'expired', 'cancelled'] as const;
export type UserSubscriptionStatus = (typeof USER_SUBSCRIPTION_STATUSES)[number];

/** new-api's limits on a plan's price (in the plan's currency). */
export const PLAN_PRICE_MAX = 9999;
/** Price precision: millionths of the currency unit (new-api's decimal(10,6)). */
export const PLAN_PRICE_SCALE = 1_000_000;
const PLAN_PRICE_DIGITS = 6;
export const PLAN_TITLE_MAX = 128;
export const PLAN_SUBTITLE_MAX = 255;
export const PLAN_PRODUCT_ID_MAX = 128;
/** The longest plan duration or reset period accepted, in seconds (100 years). */
export const PLAN_SECONDS_MAX = 100 * 366 * 86_400;
export const PLAN_DURATION_VALUE_MAX = 1200;

/** A plan as the API returns it. */
export const subscriptionPlan = z.object({
  id: z.number().int(),
  title: z.string(),
  subtitle: z.string(),
  price_amount: z.number(),
  currency: z.string(),
  duration_unit: z.enum(SUBSCRIPTION_DURATION_UNITS),
  duration_value: z.number().int(),
  custom_seconds: z.number().int(),
  enabled: z.boolean(),
  sort_order: z.number().int(),
  allow_balance_pay: z.boolean(),
  stripe_price_id: z.string(),
  creem_product_id: z.string(),
  waffo_pancake_product_id: z.string(),
  max_purchase_per_user: z.number().int(),
  upgrade_group: z.string(),
  total_amount: z.number().int(),
  quota_reset_period: z.enum(SUBSCRIPTION_RESET_PERIODS),
  quota_reset_custom_seconds: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type SubscriptionPlan = z.infer<typeof subscriptionPlan>;

const count = (max: number) => z.coerce.number().int().min(0).max(max);

/**
 * A plan as the console saves it (`{plan: {...}}` on POST and PUT). Missing fields take new-api's defaults; a
 * negative price, quota or cap, an unknown unit and a custom period without seconds are refused.
 */
export const subscriptionPlanInput = z
  .object({
    title: z.string().trim().min(1).max(PLAN_TITLE_MAX),
    subtitle: z.string().max(PLAN_SUBTITLE_MAX).default(''),
    price_amount: z.coerce.number().min(0).max(PLAN_PRICE_MAX).default(0),
    currency: z.string().max(8).optional(),
    duration_unit: z.enum(SUBSCRIPTION_DURATION_UNITS).default('month'),
    duration_value: count(PLAN_DURATION_VALUE_MAX).default(1),
    custom_seconds: count(PLAN_SECONDS_MAX).default(0),
    enabled: z.boolean().default(true),
    sort_order: z.coerce.number().int().min(-1_000_000).max(1_000_000).default(0),
    allow_balance_pay: z.boolean().default(true),
    stripe_price_id: z.string().trim().max(PLAN_PRODUCT_ID_MAX).default(''),
    creem_product_id: z.string().trim().max(PLAN_PRODUCT_ID_MAX).default(''),
    waffo_pancake_product_id: z.string().trim().max(PLAN_PRODUCT_ID_MAX).default(''),
    max_purchase_per_user: count(1_000_000).default(0),
    upgrade_group: z.string().trim().max(64).default(''),
    total_amount: count(Number.MAX_SAFE_INTEGER).default(0),
    quota_reset_period: z.enum(SUBSCRIPTION_RESET_PERIODS).default('never'),
    quota_reset_custom_seconds: count(PLAN_SECONDS_MAX).default(0),
  })
  .refine(
    (p) => p.duration_unit !== 'custom' || p.custom_seconds > 0,
    inputRule(ErrorCode.InputNotAbove, 'a custom duration needs custom_seconds above 0', { min: 0 }, [
      'custom_seconds',
    ]),
  )
  .refine(
    (p) => p.duration_unit === 'custom' || p.duration_value > 0,
    inputRule(ErrorCode.InputTooSmall, 'duration_value must be at least 1', { min: 1 }, ['duration_value']),
  )
  .refine(
    (p) => p.quota_reset_period !== 'custom' || p.quota_reset_custom_seconds > 0,
    inputRule(ErrorCode.InputNotAbove, 'a custom reset period needs quota_reset_custom_seconds above 0', { min: 0 }, [
      'quota_reset_custom_seconds',
    ]),
  );
export type SubscriptionPlanInput = z.infer<typeof subscriptionPlanInput>;

export const subscriptionPlanBody = z.object({ plan: subscriptionPlanInput });
export const subscriptionPlanStatusBody = z.object({ enabled: z.boolean() });
export const subscriptionPlanIdBody = z.object({ plan_id: z.coerce.number().int().positive() });
export const subscriptionBindBody = z.object({
  user_id: z.coerce.number().int().positive(),
  plan_id: z.coerce.number().int().positive(),
});
export const subscriptionEpayBody = subscriptionPlanIdBody.extend({ payment_method: z.string().min(1).max(32) });
export const billingPreferenceBody = z.object({ billing_preference: z.string().max(64) });

/** A plan a user holds, as the API returns it (inside `{subscription}`). */
export const userSubscription = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  plan_id: z.number().int(),
  amount_total: z.number().int(),
  amount_used: z.number().int(),
  start_time: z.number().int(),
  end_time: z.number().int(),
  status: z.enum(USER_SUBSCRIPTION_STATUSES),
  source: z.string(),
  last_reset_time: z.number().int(),
  next_reset_time: z.number().int(),
  upgrade_group: z.string(),
  prev_user_group: z.string(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type UserSubscription = z.infer<typeof userSubscription>;

/** GET /api/subscription/self. */
export const subscriptionSelf = z.object({
  billing_preference: z.enum(BILLING_PREFERENCES),
  subscriptions: z.array(z.object({ subscription: userSubscription })),
  all_subscriptions: z.array(z.object({ subscription: userSubscription })),
});
export type SubscriptionSelf = z.infer<typeof subscriptionSelf>;

/** new-api's reading of a stored preference: anything unknown is the default. */
export function normalizeBillingPreference(pref: unknown): BillingPreference {
  const p = typeof pref === 'string' ? pref.trim() : '';
  return (BILLING_PREFERENCES as readonly string[]).includes(p) ? (p as BillingPreference) : DEFAULT_BILLING_PREFERENCE;
}

/** A price in currency units (up to 6 decimals) as millionths, exactly (9.99 → 9_990_000). */
export function planPriceMicros(priceAmount: number): number {
  return Number(roundToInt(mul(dec(priceAmount), dec(PLAN_PRICE_SCALE))));
}

/** What a plan costs in wallet quota (new-api's balance purchase): price × QuotaPerUnit, rounded up. */
export function planPriceQuota(priceMicros: number, quotaPerUnit: number): number {
  const quota = mul(dec(priceMicros), dec(quotaPerUnit));
  // ÷ 10⁶ (PLAN_PRICE_SCALE) exactly: six more decimal places.
  return Number(floorToInt({ m: quota.m, s: quota.s + PLAN_PRICE_DIGITS }, true));
}
