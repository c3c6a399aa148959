import {
  dec,
  isNegative,
  mul,
  PLAN_PRICE_SCALE,
  QUOTA_MAX,
  roundToInt,
  SUBSCRIPTION_DURATION_UNITS,
  SUBSCRIPTION_RESET_PERIODS,
  USER_SUBSCRIPTION_STATUSES,
} from '@tollway/shared';
import type { TableSpec } from './copy.js';
import { userRef, type MapContext } from './context.js';
import type { TableReport } from './report.js';
import { quotaProblem } from './rules.js';
import type { ItemSource } from './subscription-items.js';
import { flag, num, ref, text, type Row } from './values.js';

/**
 * new-api's subscription plans, the plans users hold and plan orders, with their ids (orders and subscriptions name
 * plans). new-api's columns are Tollway's but for the price: decimal `price_amount` becomes `price_micros`, exact.
 * Columns an older new-api lacks take new-api's defaults.
 */

const ORDER_STATUSES = new Set(['pending', 'success', 'expired', 'failed']);
const AMOUNTS = ['amount_total', 'amount_used'] as const;
const DEFAULT_CURRENCY = 'USD';
const DEFAULT_DURATION_UNIT = 'month';
const DEFAULT_RESET_PERIOD = 'never';
const DEFAULT_SOURCE = 'order';
const UNKNOWN_STATUS = 'expired';
const QUOTA_REFUSED = `a quota value is not a whole number from 0 to ${QUOTA_MAX} (refused; listed below)`;
const REQUESTS_NOT_CARRIED =
  "request-count item(s) (quota_type other than 0) not carried: Tollway's plans hold quota, not request counts";

/** A GORM bool with default:true read as 0/1: NULL (or a column older versions lack) is true. */
const trueUnlessFalse = (v: unknown): number => (v === null || v === undefined || v === '' ? 1 : flag(v));

const oneOf = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

/** A decimal price (a number from SQLite, text from PostgreSQL and MySQL) in millionths, exact; undefined if not a price. */
export function priceMicros(v: unknown): number | undefined {
  if (v === null || v === undefined || v === '') return 0;
  try {
    const d = dec(typeof v === 'number' ? v : text(v));
    if (isNegative(d)) return undefined;
    return Number(roundToInt(mul(d, dec(PLAN_PRICE_SCALE))));
  } catch {
    return undefined;
  }
}

/** A plan's quota per period: its column, else (first schema) the sum of its quota items. */
function planTotal(r: Row, items: ItemSource | undefined, report: TableReport): { total: number; disable?: string } {
  if (items === undefined) return { total: num(r.total_amount) };
  if (typeof items === 'string') return { total: 0, disable: items };
  const it = items.get(num(r.id));
  if (it?.requestItems) report.refuse(`id ${num(r.id)}`, `${it.requestItems} ${REQUESTS_NOT_CARRIED}`);
  if (!it?.quotaItems)
    return { total: 0, disable: 'no quota item in subscription_plan_items (a total of 0 would be unlimited)' };
  return { total: it.total };
}

export function subscriptionPlansSpec(ctx: MapContext, items?: ItemSource): TableSpec {
  return {
    source: 'subscription_plans',
    target: 'subscription_plans',
    map(r, report) {
      const example = `id ${num(r.id)}`;
      const price = priceMicros(r.price_amount);
      if (price === undefined) {
        report.refuse(example, `price_amount ${text(r.price_amount)} is not a price of 0 or more`);
        return 'the price is not a price of 0 or more (refused; listed below)';
      }
      const unit = text(r.duration_unit).trim() || DEFAULT_DURATION_UNIT;
      if (!oneOf(SUBSCRIPTION_DURATION_UNITS, unit)) {
        report.refuse(example, `duration_unit "${unit}" is not one of ${SUBSCRIPTION_DURATION_UNITS.join(', ')}`);
        return 'the duration unit is unknown (new-api could not sell the plan either; listed below)';
      }
      let period = text(r.quota_reset_period).trim() || DEFAULT_RESET_PERIOD;
      if (!oneOf(SUBSCRIPTION_RESET_PERIODS, period)) {
        report.note(`subscription_plans.quota_reset_period "${period}": read as never, as new-api reads it`, example);
        period = DEFAULT_RESET_PERIOD;
      }
      const { total, disable } = planTotal(r, items, report);
      if (disable) report.refuse(example, `${disable}: imported disabled`);
      const bad = quotaProblem({ total_amount: total }, ['total_amount']);
      if (bad) {
        report.refuse(example, bad);
        return QUOTA_REFUSED;
      }
      return {
        id: num(r.id) + ctx.off.subscription_plans,
        title: text(r.title),
        subtitle: text(r.subtitle),
        price_micros: price,
        currency: text(r.currency).trim() || DEFAULT_CURRENCY,
        duration_unit: unit,
        duration_value: num(r.duration_value, 1),
        custom_seconds: num(r.custom_seconds),
        enabled: disable ? 0 : trueUnlessFalse(r.enabled),
        sort_order: num(r.sort_order),
        allow_balance_pay: trueUnlessFalse(r.allow_balance_pay),
        stripe_price_id: text(r.stripe_price_id),
        creem_product_id: text(r.creem_product_id),
        waffo_pancake_product_id: text(r.waffo_pancake_product_id),
        max_purchase_per_user: num(r.max_purchase_per_user),
        upgrade_group: text(r.upgrade_group),
        total_amount: total,
        quota_reset_period: period,
        quota_reset_custom_seconds: num(r.quota_reset_custom_seconds),
        created_at: num(r.created_at),
        updated_at: num(r.updated_at),
      };
    },
  };
}

/** A subscription's quota: its columns, else (first schema) the sums of its quota items; a string: not carried. */
function subscriptionAmounts(r: Row, items: ItemSource | undefined, report: TableReport) {
  if (items === undefined) return { amount_total: num(r.amount_total), amount_used: num(r.amount_used) };
  if (typeof items === 'string') return items;
  const it = items.get(num(r.id));
  if (it?.requestItems) report.refuse(`id ${num(r.id)}`, `${it.requestItems} ${REQUESTS_NOT_CARRIED}`);
  if (!it?.quotaItems) {
    if (it?.requestItems) return 'it holds only request-count items (refused; listed below)';
    return 'no item in user_subscription_items: its quota is unknown';
  }
  return { amount_total: it.total, amount_used: it.used };
}

export function userSubscriptionsSpec(ctx: MapContext, items?: ItemSource): TableSpec {
  return {
    source: 'user_subscriptions',
    target: 'user_subscriptions',
    requires: { column: 'user_id', table: 'users', what: 'user' },
    sums: [...AMOUNTS],
    map(r, report) {
      const example = `id ${num(r.id)}`;
      const amounts = subscriptionAmounts(r, items, report);
      if (typeof amounts === 'string') return amounts;
      const bad = quotaProblem(amounts, AMOUNTS);
      if (bad) {
        report.refuse(example, bad);
        return QUOTA_REFUSED;
      }
      let status = text(r.status).trim();
      if (!oneOf(USER_SUBSCRIPTION_STATUSES, status)) {
        report.note(
          `user_subscriptions.status "${status}": Tollway knows ${USER_SUBSCRIPTION_STATUSES.join(', ')}; stored as ${UNKNOWN_STATUS}`,
          example,
        );
        status = UNKNOWN_STATUS;
      }
      return {
        id: num(r.id) + ctx.off.user_subscriptions,
        user_id: userRef(ctx, r.user_id),
        plan_id: ref(r.plan_id, ctx.off.subscription_plans),
        ...amounts,
        start_time: num(r.start_time),
        end_time: num(r.end_time),
        status,
        source: text(r.source).trim() || DEFAULT_SOURCE,
        last_reset_time: num(r.last_reset_time),
        next_reset_time: num(r.next_reset_time),
        upgrade_group: text(r.upgrade_group),
        prev_user_group: text(r.prev_user_group),
        created_at: num(r.created_at),
        updated_at: num(r.updated_at),
      };
    },
  };
}

export function subscriptionOrdersSpec(ctx: MapContext): TableSpec {
  return {
    source: 'subscription_orders',
    target: 'subscription_orders',
    uniques: ['trade_no'],
    requires: { column: 'user_id', table: 'users', what: 'user' },
    map(r, report) {
      const tradeNo = text(r.trade_no);
      if (!tradeNo) return 'the order has no trade number';
      let status = text(r.status);
      if (!ORDER_STATUSES.has(status)) {
        report.note(
          `subscription_orders.status "${status}": Tollway knows ${[...ORDER_STATUSES].join(', ')}; stored as ${UNKNOWN_STATUS}`,
          `id ${num(r.id)}`,
        );
        status = UNKNOWN_STATUS;
      }
      return {
        id: num(r.id) + ctx.off.subscription_orders,
        user_id: userRef(ctx, r.user_id),
        plan_id: ref(r.plan_id, ctx.off.subscription_plans),
        money: num(r.money),
        trade_no: tradeNo,
        payment_method: text(r.payment_method),
        payment_provider: text(r.payment_provider),
        status,
        create_time: num(r.create_time),
        complete_time: num(r.complete_time),
        provider_payload: text(r.provider_payload),
      };
    },
  };
}
