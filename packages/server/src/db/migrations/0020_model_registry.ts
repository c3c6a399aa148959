import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * The model registry of new-api's model management: vendors and models' metadata (description, icon, tags,
 * vendor, endpoints, name rule), with new-api's table and column names. Names are unique; Tollway deletes rows,
 * so deleted_at (new-api's soft delete) stays NULL and is kept for operators' SQL and imports.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('vendors'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('description', col.longText, col.text)
    .addColumn('icon', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('uk_vendor_name').on('vendors').column('name').unique().execute();

  await col
    .id(db.schema.createTable('models'))
    .addColumn('model_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('description', col.longText, col.text)
    .addColumn('icon', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('tags', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('vendor_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('endpoints', col.longText, col.text)
    .addColumn('context_length', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('knowledge_cutoff', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('release_date', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('parameter_count', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('input_modalities', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('output_modalities', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sync_official', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name_rule', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('uk_model_name').on('models').column('model_name').unique().execute();
  await db.schema.createIndex('idx_models_vendor_id').on('models').column('vendor_id').execute();
}
