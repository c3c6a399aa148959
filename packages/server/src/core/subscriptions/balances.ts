import type { Db } from '../../db/connect.js';

/**
 * What an unlimited plan (amount_total 0) holds in the ledger: more than any call can cost, far from the limits of
 * Redis's integers and of exact doubles, so a plan balance is always an integer `total − used`.
 */
export const UNLIMITED_PLAN_BALANCE = 2 ** 50;

/** A subscription's balance in the ledger: what is left of its period's quota. */
export function planBalance(amountTotal: number, amountUsed: number): number {
  return (amountTotal > 0 ? amountTotal : UNLIMITED_PLAN_BALANCE) - amountUsed;
}

/** The ledger's loader of plan balances (user_subscriptions by id; a missing id is unknown). */
export function planBalanceLoader(db: Db): (ids: number[]) => Promise<Map<number, number>> {
  return async (ids) =>
    new Map(
      (
        await db.kysely
          .selectFrom('user_subscriptions')
          .select(['id', 'amount_total', 'amount_used'])
          .where('id', 'in', ids)
          .execute()
      ).map((r) => [r.id, planBalance(Number(r.amount_total), Number(r.amount_used))]),
    );
}
