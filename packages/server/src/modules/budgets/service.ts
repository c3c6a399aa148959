import { ErrorCode, ORG_BUDGETS_MAX, type Budget, type BudgetBody } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { budgetResetsAt } from '../../core/period-limits/budget-counters.js';
import { periodLimitsOf } from '../../core/period-limits/service.js';
import { coded, notFound } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { budgetRuleOf } from '../../core/period-limits/budget-rules.js';
import type { OrgAccess } from '../organizations/access.js';
import { BudgetsStore, type BudgetRow } from './store.js';

export const BUDGET_MSG = {
  notFound: 'budget not found',
  target: (level: string) => `the budget's ${level} is not part of this organization`,
  cap: (max: number) => `the organization has the most budgets allowed (${max})`,
} as const;

type Deps = Pick<AppContext, 'db' | 'logDb' | 'users' | 'options' | 'redis' | 'config' | 'log'>;

/**
 * An organization's budgets (docs/operating/budgets.md): stored here, counted by the relay in the period-limits
 * take. A change reaches every node's relay through the wallet account's change (its tokens and budgets are read
 * again), so the next call counts under the budgets as they are now.
 */
export class BudgetsService {
  private readonly store: BudgetsStore;

  constructor(private readonly deps: Deps) {
    this.store = new BudgetsStore(deps.db);
  }

  /** The organization's budgets with what each has used in its current period. */
  async list(access: OrgAccess): Promise<Budget[]> {
    const rows = await this.store.list(access.org.id);
    return this.views(access, rows);
  }

  async create(access: OrgAccess, b: BudgetBody, by: number): Promise<Budget> {
    const org = access.org;
    await this.checkTarget(access, b);
    if ((await this.store.count(org.id)) >= ORG_BUDGETS_MAX)
      throw coded(ErrorCode.BudgetsCap, BUDGET_MSG.cap(ORG_BUDGETS_MAX), { max: ORG_BUDGETS_MAX });
    const id = await this.store.insert(org.id, b, by, nowSeconds());
    await this.changed(access);
    return this.one(access, id);
  }

  async update(access: OrgAccess, id: number, b: BudgetBody): Promise<Budget> {
    if (!(await this.store.find(access.org.id, id))) throw notFound(BUDGET_MSG.notFound, ErrorCode.BudgetNotFound);
    await this.checkTarget(access, b);
    await this.store.update(access.org.id, id, b, nowSeconds());
    await this.changed(access);
    return this.one(access, id);
  }

  async delete(access: OrgAccess, id: number): Promise<null> {
    if (!(await this.store.delete(access.org.id, id))) throw notFound(BUDGET_MSG.notFound, ErrorCode.BudgetNotFound);
    await this.changed(access);
    return null;
  }

  private async one(access: OrgAccess, id: number): Promise<Budget> {
    const row = await this.store.find(access.org.id, id);
    if (!row) throw notFound(BUDGET_MSG.notFound, ErrorCode.BudgetNotFound);
    return (await this.views(access, [row]))[0]!;
  }

  /** A team, member or token budget must name one of the organization's own. */
  private async checkTarget(access: OrgAccess, b: BudgetBody): Promise<void> {
    if (b.level === 'org' || b.level === 'tag') return;
    if ((await this.store.targetName(access.org, b.level, b.target_id)) === undefined)
      throw coded(ErrorCode.BudgetTargetInvalid, BUDGET_MSG.target(b.level), { level: b.level });
  }

  /** Every node's relay reads the organization's tokens and budgets again (the wallet account's change). */
  private changed(access: OrgAccess): Promise<void> {
    return this.deps.users.notifyChanged(Number(access.org.wallet_user_id));
  }

  private async views(access: OrgAccess, rows: BudgetRow[]): Promise<Budget[]> {
    const rules = rows.map(budgetRuleOf);
    const uses = await periodLimitsOf(this.deps).budgetUses(rules, Number(access.org.wallet_user_id));
    const names = await Promise.all(
      rows.map((r) => (r.level === 'tag' ? r.tag : this.store.targetName(access.org, r.level, r.target_id))),
    );
    return rows.map((r, i) => {
      const rule = rules[i]!;
      const used = uses[i]!.used;
      return {
        id: r.id,
        level: rule.level,
        target_id: rule.targetId,
        target_name: names[i] ?? '',
        tag: r.tag,
        period: rule.period,
        limit_quota: rule.limit,
        hard: rule.hard,
        alert_percents: [...rule.alertPercents],
        alert_email: rule.alertEmail,
        alert_webhook: rule.alertWebhook,
        used_quota: used,
        remaining_quota: Math.max(0, rule.limit - used),
        resets_at: Math.floor(budgetResetsAt(uses[i]!.counter) / 1000),
        created_at: Number(r.created_at),
      };
    });
  }
}

export const budgetsOf = perContext((ctx) => new BudgetsService(ctx));
