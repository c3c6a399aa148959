import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Organizations (docs/operating/organizations.md): the organizations, their members, invitations, teams, budgets
 * and the budget alerts already sent (one row per budget, period and threshold, so an alert goes out once).
 *
 * Existing tables gain, where missing: `users.org_id` (non-zero: the account is that organization's shared wallet),
 * `tokens.member_id` / `tokens.team_id` (whom in the organization a token belongs to) and, on the logs,
 * `member_id`, `team_id`, `tags` (`,a,b,`) and `billed_quota` (a reseller organization's price of the call). Every
 * existing row keeps its meaning: 0 and '' say "a person's own account".
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  const schema =
    dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  const tables = await db.introspection.getTables();
  const has = (table: string, column: string) =>
    tables
      .find((t) => t.name === table && (schema === undefined || t.schema === schema))
      ?.columns.some((c) => c.name === column) ?? false;
  const addInt = async (table: string, column: string) => {
    if (!has(table, column))
      await db.schema
        .alterTable(table)
        .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
  };

  await addInt('users', 'org_id');
  await addInt('tokens', 'member_id');
  await addInt('tokens', 'team_id');
  await addInt('logs', 'member_id');
  await addInt('logs', 'team_id');
  if (!has('logs', 'billed_quota'))
    await db.schema
      .alterTable('logs')
      .addColumn('billed_quota', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  if (!has('logs', 'tags'))
    await db.schema
      .alterTable('logs')
      .addColumn('tags', 'varchar(400)', (c) => c.notNull().defaultTo(''))
      .execute();
  await db.schema
    .createIndex('idx_logs_user_member_created')
    .on('logs')
    .columns(['user_id', 'member_id', 'created_at'])
    .execute();
  await db.schema.createIndex('idx_tokens_member').on('tokens').columns(['user_id', 'member_id']).execute();
  await db.schema.createIndex('idx_users_org').on('users').column('org_id').execute();

  await col
    .id(db.schema.createTable('organizations'))
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('wallet_user_id', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('reseller', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('markup_bp', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('alert_webhook_url', 'varchar(512)', (c) => c.notNull().defaultTo(''))
    .addColumn('alert_webhook_secret', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('ux_organizations_wallet')
    .on('organizations')
    .column('wallet_user_id')
    .unique()
    .execute();
  await db.schema.createIndex('idx_organizations_created_by').on('organizations').column('created_by').execute();

  await col
    .id(db.schema.createTable('org_members'))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('ux_org_members').on('org_members').columns(['org_id', 'user_id']).unique().execute();
  await db.schema.createIndex('idx_org_members_user').on('org_members').column('user_id').execute();

  await col
    .id(db.schema.createTable('org_invitations'))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)', (c) => c.notNull().defaultTo(''))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('accepted_by', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('accepted_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('ux_org_invitations_code').on('org_invitations').column('code_hash').unique().execute();
  await db.schema.createIndex('idx_org_invitations_org').on('org_invitations').columns(['org_id', 'status']).execute();

  await col
    .id(db.schema.createTable('org_teams'))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('ux_org_teams_name').on('org_teams').columns(['org_id', 'name']).unique().execute();

  await col
    .id(db.schema.createTable('org_team_members'))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('team_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ux_org_team_members')
    .on('org_team_members')
    .columns(['team_id', 'user_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('idx_org_team_members_org')
    .on('org_team_members')
    .columns(['org_id', 'user_id'])
    .execute();

  await col
    .id(db.schema.createTable('budgets'))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('level', 'varchar(8)', (c) => c.notNull())
    .addColumn('target_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tag', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('period', 'varchar(8)', (c) => c.notNull())
    .addColumn('limit_quota', 'bigint', (c) => c.notNull())
    .addColumn('hard', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('alert_percents', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('alert_email', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('alert_webhook', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('idx_budgets_org').on('budgets').column('org_id').execute();

  await col
    .id(db.schema.createTable('budget_alerts'))
    .addColumn('budget_id', 'integer', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('percent', 'integer', (c) => c.notNull())
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('fired_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('ux_budget_alerts')
    .on('budget_alerts')
    .columns(['budget_id', 'period_start', 'percent'])
    .unique()
    .execute();
}
