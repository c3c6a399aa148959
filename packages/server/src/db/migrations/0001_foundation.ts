import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/** Users, options and setup state. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('users'))
    .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('password', 'varchar(255)', (c) => c.notNull())
    .addColumn('display_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('role', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('email', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('github_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('oidc_id', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('wechat_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('telegram_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('linux_do_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('access_token', 'varchar(64)', (c) => c.unique())
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('request_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('group', 'varchar(64)', (c) => c.notNull().defaultTo('default'))
    .addColumn('aff_code', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('aff_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('aff_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('aff_history', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('inviter_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('setting', col.longText, col.text)
    .addColumn('remark', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('idx_users_email').on('users').column('email').execute();
  await db.schema.createIndex('idx_users_group').on('users').column('group').execute();
  await db.schema.createIndex('idx_users_inviter').on('users').column('inviter_id').execute();

  await db.schema
    .createTable('options')
    .addColumn('key', 'varchar(191)', (c) => c.primaryKey())
    .addColumn('value', col.longText, col.text)
    .execute();

  await col
    .id(db.schema.createTable('setups'))
    .addColumn('version', 'varchar(64)', (c) => c.notNull())
    .addColumn('initialized_at', 'bigint', (c) => c.notNull())
    .execute();
}
