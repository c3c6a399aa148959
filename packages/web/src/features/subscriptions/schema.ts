import {
  PLAN_DURATION_VALUE_MAX,
  PLAN_PRICE_MAX,
  PLAN_PRODUCT_ID_MAX,
  PLAN_SUBTITLE_MAX,
  PLAN_TITLE_MAX,
  subscriptionPlanInput,
  type SubscriptionDurationUnit,
  type SubscriptionPlan,
  type SubscriptionPlanInput,
  type SubscriptionResetPeriod,
} from '@tollway/shared';
import type { FieldErrors, Resolver } from 'react-hook-form';
import { hasPriceScale } from '../../lib/subscription-format';

/** The plan editor's values: number boxes hold null while empty. */
export interface PlanForm {
  title: string;
  subtitle: string;
  price_amount: number | null;
  duration_unit: SubscriptionDurationUnit;
  duration_value: number | null;
  custom_seconds: number | null;
  total_amount: number | null;
  quota_reset_period: SubscriptionResetPeriod;
  quota_reset_custom_seconds: number | null;
  enabled: boolean;
  sort_order: number | null;
  allow_balance_pay: boolean;
  stripe_price_id: string;
  creem_product_id: string;
  waffo_pancake_product_id: string;
  max_purchase_per_user: number | null;
  upgrade_group: string;
}

/** The currency plans are priced in (new-api's only one). */
export const PLAN_CURRENCY = 'USD';

/** A new plan: one month, unlimited quota that never resets, enabled, payable from the wallet. */
export function formDefaults(plan?: SubscriptionPlan): PlanForm {
  return {
    title: plan?.title ?? '',
    subtitle: plan?.subtitle ?? '',
    price_amount: plan?.price_amount ?? 0,
    duration_unit: plan?.duration_unit ?? 'month',
    duration_value: plan?.duration_value ?? 1,
    custom_seconds: plan?.custom_seconds ?? 0,
    total_amount: plan?.total_amount ?? 0,
    quota_reset_period: plan?.quota_reset_period ?? 'never',
    quota_reset_custom_seconds: plan?.quota_reset_custom_seconds ?? 0,
    enabled: plan?.enabled ?? true,
    sort_order: plan?.sort_order ?? 0,
    allow_balance_pay: plan?.allow_balance_pay ?? true,
    stripe_price_id: plan?.stripe_price_id ?? '',
    creem_product_id: plan?.creem_product_id ?? '',
    waffo_pancake_product_id: plan?.waffo_pancake_product_id ?? '',
    max_purchase_per_user: plan?.max_purchase_per_user ?? 0,
    upgrade_group: plan?.upgrade_group ?? '',
  };
}

type Translate = (key: string, values?: Record<string, unknown>) => string;

/** What each field's failed check says: the key under `subscriptions:validation` and its values. */
const MESSAGES: Partial<Record<keyof PlanForm, [string, Record<string, unknown>?]>> = {
  title: ['title', { max: PLAN_TITLE_MAX }],
  subtitle: ['subtitle', { max: PLAN_SUBTITLE_MAX }],
  price_amount: ['price', { max: PLAN_PRICE_MAX }],
  duration_value: ['durationValue', { max: PLAN_DURATION_VALUE_MAX }],
  custom_seconds: ['customSeconds'],
  total_amount: ['totalAmount'],
  quota_reset_custom_seconds: ['resetSeconds'],
  sort_order: ['sortOrder'],
  max_purchase_per_user: ['maxPurchase'],
  stripe_price_id: ['productId', { max: PLAN_PRODUCT_ID_MAX }],
  creem_product_id: ['productId', { max: PLAN_PRODUCT_ID_MAX }],
  waffo_pancake_product_id: ['productId', { max: PLAN_PRODUCT_ID_MAX }],
  upgrade_group: ['upgradeGroup'],
};

/** Number boxes that must not be left empty, given the chosen units (a custom span needs its seconds). */
function requiredNumbers(v: PlanForm): (keyof PlanForm)[] {
  const fields: (keyof PlanForm)[] = ['price_amount', 'total_amount', 'sort_order', 'max_purchase_per_user'];
  fields.push(v.duration_unit === 'custom' ? 'custom_seconds' : 'duration_value');
  if (v.quota_reset_period === 'custom') fields.push('quota_reset_custom_seconds');
  return fields;
}

/** The values sent: the shared schema's input, with unused number boxes as 0. */
function toRaw(v: PlanForm): Record<string, unknown> {
  return {
    ...v,
    currency: PLAN_CURRENCY,
    price_amount: v.price_amount ?? 0,
    duration_value: v.duration_value ?? 0,
    custom_seconds: v.custom_seconds ?? 0,
    total_amount: v.total_amount ?? 0,
    quota_reset_custom_seconds: v.quota_reset_custom_seconds ?? 0,
    sort_order: v.sort_order ?? 0,
    max_purchase_per_user: v.max_purchase_per_user ?? 0,
  };
}

/**
 * The plan editor's resolver: the shared schema (`subscriptionPlanInput`, the server's own check) decides, empty
 * number boxes and a price past six decimals are caught first, and each failure is worded in the viewer's language.
 */
export function planResolver(t: Translate): Resolver<PlanForm, unknown, SubscriptionPlanInput> {
  return (values) => {
    const errors: FieldErrors<PlanForm> = {};
    const fail = (field: keyof PlanForm, key: string, extra?: Record<string, unknown>) => {
      errors[field] ??= { type: 'validate', message: t(`subscriptions:validation.${key}`, extra) };
    };
    for (const field of requiredNumbers(values)) if (values[field] === null) fail(field, 'required');
    if (values.price_amount !== null && !hasPriceScale(values.price_amount)) fail('price_amount', 'priceScale');
    const parsed = subscriptionPlanInput.safeParse(toRaw(values));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as keyof PlanForm;
        const [key, extra] = MESSAGES[field] ?? ['required'];
        fail(field, key, extra);
      }
    }
    if (Object.keys(errors).length > 0 || !parsed.success) return { values: {}, errors };
    return { values: parsed.data, errors: {} };
  };
}
