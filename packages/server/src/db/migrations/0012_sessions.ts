import type { Kysely } from 'kysely';

/**
 * Console sessions, one row per signed-in browser. `id` is the SHA-256 (hex) of the random session id carried in
 * the sealed cookie, never the id itself, so a copy of the table cannot be turned into cookies. Deleting the
 * row ends the session on every node at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('user_agent', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('idx_sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('idx_sessions_expires').on('sessions').column('expires_at').execute();
}
