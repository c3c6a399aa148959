import { sql, type Kysely } from 'kysely';

/** The users column holding each provider's account id, by the provider key stored in user_identities. */
export const IDENTITY_COLUMNS = {
  github: 'github_id',
  oidc: 'oidc_id',
  wechat: 'wechat_id',
  telegram: 'telegram_id',
  linuxdo: 'linux_do_id',
} as const;

/**
 * Third-party account ids, one row per (provider, external_id): the primary key makes an account belong to at
 * most one user on every dialect (the users columns cannot carry a unique index: every unbound user holds '').
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('external_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('pk_user_identities', ['provider', 'external_id'])
    .execute();
  await db.schema.createIndex('idx_user_identities_user').on('user_identities').column('user_id').execute();
  await backfillUserIdentities(db);
}

/**
 * Copies the non-empty provider ids of the users table (deleted users included: they keep their bindings) into
 * user_identities, skipping accounts already there. Data written before this table existed may hold one account
 * on several users (two sign-ins or binds at the same moment): the lowest user id keeps it, the user the old
 * lookup (the first by id) already logged in, and the others' columns are emptied, as the API shows them and
 * they never owned the account in practice. Nothing is logged and nothing fails: a migration must go through on
 * any old data.
 */
export async function backfillUserIdentities(db: Kysely<unknown>): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  for (const [provider, column] of Object.entries(IDENTITY_COLUMNS)) {
    const key = sql.lit(provider);
    const col = sql.ref(`u.${column}`);
    await sql`
      INSERT INTO user_identities (provider, external_id, user_id, created_at)
      SELECT ${key}, ${col}, MIN(u.id), ${sql.lit(now)}
      FROM users u
      WHERE ${col} <> ''
        AND NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.provider = ${key} AND ui.external_id = ${col})
      GROUP BY ${col}`.execute(db);
    const own = sql.ref(column);
    await sql`
      UPDATE users SET ${own} = ''
      WHERE ${own} <> ''
        AND NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.provider = ${key} AND ui.external_id = users.${own} AND ui.user_id = users.id)`.execute(
      db,
    );
  }
}
