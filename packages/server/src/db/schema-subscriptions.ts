import type { Generated } from 'kysely';

/** A plan root defines (new-api's subscription_plans); `price_micros` is the price in millionths of `currency`. */
export interface SubscriptionPlansTable {
  id: Generated<number>;
  title: string;
  subtitle: string;
  price_micros: number;
  currency: string;
  /** 'year' | 'month' | 'day' | 'hour' | 'custom' (then custom_seconds). */
  duration_unit: string;
  duration_value: number;
  custom_seconds: number;
  /** 1 on sale, 0 not. */
  enabled: number;
  sort_order: number;
  /** 1: may be bought with wallet quota. */
  allow_balance_pay: number;
  stripe_price_id: string;
  creem_product_id: string;
  waffo_pancake_product_id: string;
  /** Purchases per user (0: no cap). */
  max_purchase_per_user: number;
  /** The group a buyer moves to while the plan is active ('' none). */
  upgrade_group: string;
  /** Quota per period (0: unlimited). */
  total_amount: number;
  /** 'never' | 'daily' | 'weekly' | 'monthly' | 'custom' (then quota_reset_custom_seconds). */
  quota_reset_period: string;
  quota_reset_custom_seconds: number;
  created_at: number;
  updated_at: number;
}

/** A plan a user holds: the plan's quota copied at purchase, drawn by relay calls (new-api's user_subscriptions). */
export interface UserSubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  plan_id: number;
  /** Quota per period (0: unlimited). */
  amount_total: number;
  /** Drawn in the current period (committed charges). */
  amount_used: number;
  start_time: number;
  end_time: number;
  /** 'active' | 'expired' | 'cancelled'. */
  status: string;
  /** 'order' | 'admin' | 'balance' | 'import'. */
  source: string;
  last_reset_time: number;
  /** When amount_used next returns to 0 (0: never). */
  next_reset_time: number;
  upgrade_group: string;
  /** The group the user had before the plan's upgrade, restored when no upgrading plan is left. */
  prev_user_group: string;
  created_at: number;
  updated_at: number;
}

/** A plan purchase (new-api's subscription_orders): paid by card or Epay, or at once from the wallet. */
export interface SubscriptionOrdersTable {
  id: Generated<number>;
  user_id: number;
  plan_id: number;
  /** What the user pays, in the plan's currency. */
  money: number;
  trade_no: string;
  payment_method: string;
  payment_provider: string;
  status: 'pending' | 'success' | 'expired' | 'failed';
  create_time: number;
  complete_time: number;
  provider_payload: string;
}
