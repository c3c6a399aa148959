import type { BudgetBody } from '@tollway/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { BudgetsTable } from '../../db/schema-organizations.js';

export type BudgetRow = Selectable<BudgetsTable>;

/** A budget body as its row's columns. */
function columnsOf(b: BudgetBody) {
  return {
    level: b.level,
    target_id: b.target_id,
    tag: b.tag,
    period: b.period,
    limit_quota: b.limit_quota,
    hard: b.hard ? 1 : 0,
    alert_percents: b.alert_percents.join(','),
    alert_email: b.alert_email ? 1 : 0,
    alert_webhook: b.alert_webhook ? 1 : 0,
  };
}

/** The budgets table, and what a budget may be set on: the organization's teams, members and tokens. */
export class BudgetsStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  list(orgId: number): Promise<BudgetRow[]> {
    return this.k.selectFrom('budgets').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  }

  find(orgId: number, id: number): Promise<BudgetRow | undefined> {
    return this.k.selectFrom('budgets').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }

  async count(orgId: number): Promise<number> {
    const row = await this.k
      .selectFrom('budgets')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async insert(orgId: number, b: BudgetBody, by: number, now: number): Promise<number> {
    const values = { org_id: orgId, ...columnsOf(b), created_by: by, created_at: now, updated_at: now };
    if (this.db.dialect === 'mysql') {
      const r = await this.k.insertInto('budgets').values(values).executeTakeFirstOrThrow();
      return Number(r.insertId);
    }
    const row = await this.k.insertInto('budgets').values(values).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async update(orgId: number, id: number, b: BudgetBody, now: number): Promise<boolean> {
    const r = await this.k
      .updateTable('budgets')
      .set({ ...columnsOf(b), updated_at: now })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(orgId: number, id: number): Promise<boolean> {
    const r = await this.k.deleteFrom('budgets').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) > 0) {
      await this.k.deleteFrom('budget_alerts').where('budget_id', '=', id).execute();
      return true;
    }
    return false;
  }

  /** The name of what a budget of `level` is set on in the organization (undefined: not the organization's). */
  async targetName(
    org: { id: number; wallet_user_id: number },
    level: string,
    targetId: number,
  ): Promise<string | undefined> {
    if (level === 'team') {
      const t = await this.k
        .selectFrom('org_teams')
        .select('name')
        .where('org_id', '=', org.id)
        .where('id', '=', targetId)
        .executeTakeFirst();
      return t?.name;
    }
    if (level === 'member') {
      const m = await this.k
        .selectFrom('org_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('u.username')
        .where('m.org_id', '=', org.id)
        .where('m.user_id', '=', targetId)
        .executeTakeFirst();
      return m?.username;
    }
    if (level === 'token') {
      const t = await this.k
        .selectFrom('tokens')
        .select('name')
        .where('id', '=', targetId)
        .where('user_id', '=', org.wallet_user_id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return t?.name;
    }
    return '';
  }
}
