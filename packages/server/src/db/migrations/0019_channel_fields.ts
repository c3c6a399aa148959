import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * The channel columns new-api's console saves that Tollway had no place for, under new-api's names: `settings`
 * (the "other settings" JSON: allow_service_tier, disable_store, claude_beta_query…), `header_override` (JSON
 * object of headers sent upstream, with placeholders) and `remark` (a note of up to 255 characters).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await db.schema.alterTable('channels').addColumn('settings', col.longText, col.text).execute();
  await db.schema.alterTable('channels').addColumn('header_override', col.longText, col.text).execute();
  await db.schema
    .alterTable('channels')
    .addColumn('remark', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .execute();
}
