import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Two-factor sign-in: one row per user who started setting it up (enabled 0 until a code confirmed it), the
 * TOTP secret (encrypted with CRYPTO_SECRET when set), and the last step a code was accepted for so no code
 * works twice; backup codes one row each, hashed, used_at set once when spent.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('two_factor')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('secret', 'varchar(512)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_used_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('enabled_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await columns(dialect)
    .id(db.schema.createTable('two_factor_backup_codes'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(255)', (c) => c.notNull())
    .addColumn('used_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('idx_two_factor_backup_codes_user')
    .on('two_factor_backup_codes')
    .column('user_id')
    .execute();
}
