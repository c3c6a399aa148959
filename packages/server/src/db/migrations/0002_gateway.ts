import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/** Channels, abilities, tokens and usage logs (gateway core). Column names follow new-api's. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('channels'))
    .addColumn('type', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('key', col.longText, col.text)
    .addColumn('openai_organization', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('test_model', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('test_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('response_time', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('base_url', 'varchar(512)', (c) => c.notNull().defaultTo(''))
    .addColumn('other', col.longText, col.text)
    .addColumn('balance', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('balance_updated_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('models', col.longText, col.text)
    .addColumn('group', 'varchar(255)', (c) => c.notNull().defaultTo('default'))
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('model_mapping', col.longText, col.text)
    .addColumn('status_code_mapping', 'varchar(1024)', (c) => c.notNull().defaultTo(''))
    .addColumn('priority', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_ban', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('other_info', col.longText, col.text)
    .addColumn('tag', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('setting', col.longText, col.text)
    .addColumn('param_override', col.longText, col.text)
    .addColumn('system_prompt', col.longText, col.text)
    .addColumn('max_input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('model_prefix', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('expired_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('channel_info', col.longText, col.text)
    .execute();
  await db.schema.createIndex('idx_channels_tag').on('channels').column('tag').execute();
  await db.schema.createIndex('idx_channels_name').on('channels').column('name').execute();

  await db.schema
    .createTable('abilities')
    .addColumn('group', 'varchar(64)', (c) => c.notNull())
    .addColumn('model', 'varchar(191)', (c) => c.notNull())
    .addColumn('channel_id', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('priority', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tag', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('pk_abilities', ['group', 'model', 'channel_id'])
    .execute();
  await db.schema.createIndex('idx_abilities_channel').on('abilities').column('channel_id').execute();

  await col
    .id(db.schema.createTable('tokens'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('key', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('accessed_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expired_time', 'bigint', (c) => c.notNull().defaultTo(-1))
    .addColumn('remain_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('unlimited_quota', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('model_limits_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('model_limits', col.longText, col.text)
    .addColumn('allow_ips', col.longText, col.text)
    .addColumn('group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('rate_limit_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limit_period', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('rate_limit_count', 'integer', (c) => c.notNull().defaultTo(1000))
    .addColumn('rate_limit_success', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('deleted_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('idx_tokens_user').on('tokens').column('user_id').execute();
  await db.schema.createIndex('idx_tokens_name').on('tokens').column('name').execute();

  await col
    .id(db.schema.createTable('logs'))
    .addColumn('user_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('content', col.longText, col.text)
    .addColumn('username', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('token_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('model_name', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('use_time', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_stream', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('channel_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('channel_name', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('token_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('other', col.longText, col.text)
    .execute();
  // Only the indexes the log filters need: time range alone, per user, per type.
  await db.schema.createIndex('idx_logs_created').on('logs').column('created_at').execute();
  await db.schema.createIndex('idx_logs_user_created').on('logs').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('idx_logs_type_created').on('logs').columns(['type', 'created_at']).execute();
  await db.schema.createIndex('idx_logs_request').on('logs').column('request_id').execute();

  // Batches the durable writer has applied: replaying its journal after a crash skips these (exactly once).
  await db.schema
    .createTable('writer_batches')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('applied_at', 'bigint', (c) => c.notNull())
    .execute();
}
