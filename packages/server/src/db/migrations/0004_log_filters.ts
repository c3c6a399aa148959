import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/**
 * Indexes for the administrators' log filters that 0002 does not cover: by username, by channel and by model,
 * each with created_at so the newest-first page and the time range come from the index. Token name and group
 * filters narrow rows these (or the user/type/time indexes) already select, so they get none: every index
 * costs each log insert.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.createIndex('idx_logs_username_created').on('logs').columns(['username', 'created_at']).execute();
  await db.schema.createIndex('idx_logs_channel_created').on('logs').columns(['channel_id', 'created_at']).execute();
  await db.schema.createIndex('idx_logs_model_created').on('logs').columns(['model_name', 'created_at']).execute();
}
