import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * audit_logs: administrators' actions (who, what, which target, when, from where). Lives beside the usage logs
 * (the log database with LOG_SQL_DSN) and is pruned with them. The list is newest first, filtered by actor,
 * action or target, each with created_at so the page and a time range come from the index.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('audit_logs'))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('actor_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('actor_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('actor_role', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('action', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('target_type', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('target_id', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('outcome', 'varchar(16)', (c) => c.notNull().defaultTo('ok'))
    .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('user_agent', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('detail', 'text', col.text)
    .execute();
  await db.schema.createIndex('idx_audit_logs_created').on('audit_logs').column('created_at').execute();
  await db.schema.createIndex('idx_audit_logs_actor').on('audit_logs').columns(['actor_id', 'created_at']).execute();
  await db.schema
    .createIndex('idx_audit_logs_actor_name')
    .on('audit_logs')
    .columns(['actor_name', 'created_at'])
    .execute();
  await db.schema.createIndex('idx_audit_logs_action').on('audit_logs').columns(['action', 'created_at']).execute();
  await db.schema
    .createIndex('idx_audit_logs_target')
    .on('audit_logs')
    .columns(['target_type', 'target_id', 'created_at'])
    .execute();
}
