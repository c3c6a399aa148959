import { sql } from 'kysely';
import type { SourceDb } from './source.js';
import { num } from './values.js';

/**
 * new-api's first subscription schema kept a plan's quota per model in item rows (subscription_plan_items,
 * user_subscription_items: one row per model, `quota_type` 0 for quota, otherwise a request count) where later
 * versions keep one pool (`total_amount` on a plan, `amount_total` / `amount_used` on a subscription). Such a source
 * is carried by summing each row's quota items; request counts have no counterpart in Tollway.
 */

/** An item's quota_type counting quota units (any other value counts requests). */
const QUOTA_TYPE_QUOTA = 0;

/** The items of one plan or one subscription, folded. */
export interface ItemTotals {
  /** Sum of the quota items' amount_total. */
  total: number;
  /** Sum of the quota items' amount_used (0 for plan items). */
  used: number;
  /** How many quota items. */
  quotaItems: number;
  /** How many request-count items (not carried). */
  requestItems: number;
}

/** Item totals by the plan or subscription id they belong to; or why the items cannot be read. */
export type ItemSource = Map<number, ItemTotals> | string;

const has = (src: SourceDb, table: string, column: string) => src.tables.get(table)?.has(column) ?? false;

async function loadTotals(src: SourceDb, table: string, key: string, used: string | undefined): Promise<ItemSource> {
  const needed = [key, 'quota_type', 'amount_total', ...(used ? [used] : [])];
  const missing = needed.filter((c) => !has(src, table, c));
  if (missing.length > 0) return `${table} has no ${missing.join(', ')} column: the quota cannot be read`;
  const rows = (await src.kysely
    .selectFrom(table)
    .select([
      sql.ref(key).as('k'),
      sql.ref('quota_type').as('t'),
      sql<number>`count(*)`.as('n'),
      sql<number>`coalesce(sum(${sql.ref('amount_total')}), 0)`.as('total'),
      (used ? sql<number>`coalesce(sum(${sql.ref(used)}), 0)` : sql<number>`0`).as('used'),
    ])
    .groupBy([sql.ref(key), sql.ref('quota_type')])
    .execute()) as { k: unknown; t: unknown; n: unknown; total: unknown; used: unknown }[];
  const out = new Map<number, ItemTotals>();
  for (const r of rows) {
    const id = num(r.k);
    const entry = out.get(id) ?? { total: 0, used: 0, quotaItems: 0, requestItems: 0 };
    if (num(r.t) === QUOTA_TYPE_QUOTA) {
      entry.total += num(r.total);
      entry.used += num(r.used);
      entry.quotaItems += num(r.n);
    } else entry.requestItems += num(r.n);
    out.set(id, entry);
  }
  return out;
}

/**
 * The per-model quota of the subscriptions of a source whose user_subscriptions has no amount_total; undefined when
 * it has the column (or no such table).
 */
export async function subscriptionItems(src: SourceDb): Promise<ItemSource | undefined> {
  if (!src.tables.has('user_subscriptions') || has(src, 'user_subscriptions', 'amount_total')) return undefined;
  if (!src.tables.has('user_subscription_items'))
    return 'user_subscriptions has no amount_total and there is no user_subscription_items table: the quota is unknown';
  return loadTotals(src, 'user_subscription_items', 'user_subscription_id', 'amount_used');
}

/** The per-model quota of the plans of a source whose subscription_plans has no total_amount but plan items. */
export async function planItems(src: SourceDb): Promise<ItemSource | undefined> {
  if (!src.tables.has('subscription_plans') || has(src, 'subscription_plans', 'total_amount')) return undefined;
  if (!src.tables.has('subscription_plan_items')) return undefined;
  return loadTotals(src, 'subscription_plan_items', 'plan_id', undefined);
}
