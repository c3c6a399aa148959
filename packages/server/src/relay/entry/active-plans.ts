import type { Db } from '../../db/connect.js';

/** A subscription a call may draw from (user_subscriptions), as the token cache holds it. */
export interface ActivePlan {
  /** user_subscriptions.id: the ledger's plan balance. */
  id: number;
  planId: number;
  title: string;
  /** Epoch seconds; the plan is not drawn from after it. */
  end: number;
  /** Quota per period (0: unlimited). */
  total: number;
}

/** More active subscriptions than anyone holds in practice; the soonest ending are kept. */
export const ACTIVE_PLANS_MAX = 32;

/** A user's active, unexpired subscriptions at `nowMs`, the soonest ending first (new-api's draw order). */
export async function activePlansOf(db: Db, userId: number, nowMs: number): Promise<ActivePlan[]> {
  const rows = await db.kysely
    .selectFrom('user_subscriptions as s')
    .leftJoin('subscription_plans as p', 'p.id', 's.plan_id')
    .select(['s.id', 's.plan_id', 's.end_time', 's.amount_total', 'p.title'])
    .where('s.user_id', '=', userId)
    .where('s.status', '=', 'active')
    .where('s.end_time', '>', Math.floor(nowMs / 1000))
    .orderBy('s.end_time')
    .orderBy('s.id')
    .limit(ACTIVE_PLANS_MAX)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    planId: r.plan_id,
    title: r.title ?? '',
    end: Number(r.end_time),
    total: Number(r.amount_total),
  }));
}
