import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * The task relay's columns new-api's Midjourney and Task models have (group, token, properties, private data,
 * buttons, video URLs, mode, updated_at, a request id for the consume log), an index for the poller (unfinished
 * tasks by status), and `cluster_leases`: one row per background job that only one node may run at a time.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  const str = (table: string, name: string, size = 191) =>
    db.schema
      .alterTable(table)
      .addColumn(name, `varchar(${size})`, (c) => c.notNull().defaultTo(''))
      .execute();
  const int = (table: string, name: string) =>
    db.schema
      .alterTable(table)
      .addColumn(name, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  const text = (table: string, name: string) => db.schema.alterTable(table).addColumn(name, 'text', col.text).execute();
  for (const table of ['midjourneys', 'tasks']) {
    await str(table, 'group', 64);
    await int(table, 'token_id');
    await str(table, 'model_name');
    await str(table, 'request_id', 64);
    await text(table, 'properties');
    await text(table, 'private_data');
    await int(table, 'updated_at');
  }
  await text('midjourneys', 'buttons');
  await str('midjourneys', 'video_url', 1024);
  await text('midjourneys', 'video_urls');
  await str('midjourneys', 'mode', 16);
  await str('midjourneys', 'state', 255);
  await str('tasks', 'result_url', 1024);
  await db.schema.createIndex('idx_mj_status').on('midjourneys').column('status').execute();
  await db.schema.createIndex('idx_tasks_status').on('tasks').column('status').execute();
  await db.schema
    .createTable('cluster_leases')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('holder', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
