import type { BudgetLevel, BudgetPeriod } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import type { BudgetRule } from './types.js';

/** A budgets row as the relay counts it. */
export function budgetRuleOf(r: {
  id: number;
  org_id: number;
  level: string;
  target_id: number;
  tag: string;
  period: string;
  limit_quota: number | string | bigint;
  hard: number;
  alert_percents: string;
  alert_email: number;
  alert_webhook: number;
}): BudgetRule {
  return {
    id: r.id,
    orgId: r.org_id,
    level: r.level as BudgetLevel,
    targetId: Number(r.target_id),
    tag: r.tag,
    period: r.period as BudgetPeriod,
    limit: Number(r.limit_quota),
    hard: Number(r.hard) === 1,
    alertPercents: r.alert_percents
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
    alertEmail: Number(r.alert_email) === 1,
    alertWebhook: Number(r.alert_webhook) === 1,
  };
}

/** Every budget of organization `orgId`. */
export async function orgBudgetRules(db: Db, orgId: number): Promise<BudgetRule[]> {
  const rows = await db.kysely.selectFrom('budgets').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  return rows.map(budgetRuleOf);
}
