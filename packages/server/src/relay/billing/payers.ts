import { DEFAULT_BILLING_PREFERENCE, type LogOther } from '@tollway/shared';
import type { ReserveTarget } from '../../accounting/ledger.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import type { ActivePlan } from '../entry/active-plans.js';

/** Where a call's charge may come from, in the order tried: a plan (subscription) or the wallet (undefined). */
export type Payer = ActivePlan | undefined;

const WALLET: readonly Payer[] = [undefined];
/** What payerLogFields says of a caller paying from the wallet by default: nothing (the same object each time). */
export const NO_PAYER_FIELDS: Partial<LogOther> = Object.freeze({});
const NO_PAYER: readonly Payer[] = [];

/**
 * The payers a call tries, by the user's billing preference (new-api's): plans first then the wallet (the default),
 * the wallet then plans, or only one of them. Plans are tried soonest ending first and only while unexpired.
 */
export function payersOf(auth: Pick<TokenAuth, 'billing' | 'plans'>, nowSeconds: number): readonly Payer[] {
  // Most callers hold no plan: no array made per call.
  if (auth.plans.length === 0) return auth.billing === 'subscription_only' ? NO_PAYER : WALLET;
  const plans = auth.plans.filter((p) => p.end > nowSeconds);
  switch (auth.billing) {
    case 'wallet_only':
      return [undefined];
    case 'subscription_only':
      return plans;
    case 'wallet_first':
      return [undefined, ...plans];
    case 'subscription_first':
      return [...plans, undefined];
  }
}

/** A consume log's payer fields (new-api's `other` keys): the wallet, or the plan the charge was drawn from. */
export function payerLogFields(
  auth: Pick<TokenAuth, 'billing' | 'plans'>,
  target: ReserveTarget,
  charged: number,
  held: number,
): Partial<LogOther> {
  // A caller without plans pays from the wallet by default: nothing to say (the log stays as it was).
  if (!target.planId)
    return auth.plans.length === 0 && auth.billing === DEFAULT_BILLING_PREFERENCE
      ? NO_PAYER_FIELDS
      : { billing_source: 'wallet', billing_preference: auth.billing };
  const plan = auth.plans.find((p) => p.id === target.planId);
  return {
    billing_source: 'subscription',
    billing_preference: auth.billing,
    subscription_id: target.planId,
    ...(plan ? { subscription_plan_id: plan.planId, subscription_plan_title: plan.title } : {}),
    ...(plan && plan.total > 0 ? { subscription_total: plan.total } : {}),
    // What the call held on the plan and how settlement moved it (new-api's pre-consume and post delta).
    subscription_pre_consumed: held,
    subscription_post_delta: charged - held,
    subscription_consumed: charged,
    wallet_quota_deducted: 0,
  };
}
