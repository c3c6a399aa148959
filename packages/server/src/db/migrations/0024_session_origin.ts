import type { Kysely } from 'kysely';

/**
 * How each console session was signed in (auth/session-origin.ts): 'password', 'passkey', 'oauth:github',
 * 'custom_oauth:7', 'ldap'… Unbinding an identity, disabling its provider or the provider disabling the user ends
 * the sessions that identity opened, and only those. Sessions from before this migration have '' (unknown), which
 * no such event matches; they end by the other events and by expiry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('origin', 'varchar(80)', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('idx_sessions_origin').on('sessions').column('origin').execute();
}
