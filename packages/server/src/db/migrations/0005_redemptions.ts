import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Redemption codes (new-api's columns plus gift-code fields: uses allowed, uses so far) and one row per use, whose unique
 * (redemption_id, user_id) pair lets a user redeem a gift code only once. MySQL compares the key with a binary
 * collation so keys differing only in case stay distinct, as on the other databases.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  const keyType = dialect === 'mysql' ? sql`varchar(32) character set utf8mb4 collate utf8mb4_bin` : sql`varchar(32)`;
  await col
    .id(db.schema.createTable('redemptions'))
    .addColumn('user_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('key', keyType, (c) => c.notNull().unique())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redeemed_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('used_user_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_gift', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_uses', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('used_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('valid_from', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('valid_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('idx_redemptions_name').on('redemptions').column('name').execute();
  await db.schema.createIndex('idx_redemptions_status').on('redemptions').column('status').execute();

  await db.schema
    .createTable('redemption_uses')
    .addColumn('redemption_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('pk_redemption_uses', ['redemption_id', 'user_id'])
    .execute();
  await db.schema.createIndex('idx_redemption_uses_user').on('redemption_uses').column('user_id').execute();
}
