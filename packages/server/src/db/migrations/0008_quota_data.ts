import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Hourly usage aggregates for the data dashboard (new-api's quota_data): one row per user, model and hour
 * (created_at is the hour's first second, UTC), kept by the durable writer with each batch of consume logs.
 * The unique key is ordered (user_id, created_at, model_name) so it also serves a user's time range; the
 * administrators' views read by time range alone or by username and time range.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('quota_data'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('username', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('model_name', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('token_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('uq_quota_data_user_hour_model', ['user_id', 'created_at', 'model_name'])
    .execute();
  await db.schema.createIndex('idx_quota_data_created').on('quota_data').column('created_at').execute();
  await db.schema
    .createIndex('idx_quota_data_username_created')
    .on('quota_data')
    .columns(['username', 'created_at'])
    .execute();
}
