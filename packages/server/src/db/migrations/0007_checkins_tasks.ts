import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Daily check-ins (one row per user and day: the unique key makes a second check-in on the same day fail,
 * whatever the concurrency), drawing (midjourneys) and music (tasks) task records with new-api's column
 * names, and the log index review: idx_logs_request served no filter, so it goes (every index costs each insert).
 * Task times (submit/start/finish) are epoch seconds, like every other time here.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('checkins'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    // YYYY-MM-DD in the server's time zone (TZ).
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('uq_checkins_user_day', ['user_id', 'day'])
    .execute();

  await col
    .id(db.schema.createTable('midjourneys'))
    .addColumn('code', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('user_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('action', 'varchar(40)', (c) => c.notNull().defaultTo(''))
    .addColumn('mj_id', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('prompt', col.longText, col.text)
    .addColumn('prompt_en', col.longText, col.text)
    .addColumn('description', col.longText, col.text)
    .addColumn('submit_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('finish_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('image_url', col.longText, col.text)
    .addColumn('status', 'varchar(20)', (c) => c.notNull().defaultTo(''))
    .addColumn('progress', 'varchar(30)', (c) => c.notNull().defaultTo(''))
    .addColumn('fail_reason', col.longText, col.text)
    .addColumn('channel_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // The list filters: own rows (user), channel, one task id, and the submit-time range; newest first.
  await db.schema.createIndex('idx_mj_user_submit').on('midjourneys').columns(['user_id', 'submit_time']).execute();
  await db.schema
    .createIndex('idx_mj_channel_submit')
    .on('midjourneys')
    .columns(['channel_id', 'submit_time'])
    .execute();
  await db.schema.createIndex('idx_mj_submit').on('midjourneys').column('submit_time').execute();
  await db.schema.createIndex('idx_mj_mj_id').on('midjourneys').column('mj_id').execute();

  await col
    .id(db.schema.createTable('tasks'))
    .addColumn('task_id', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('platform', 'varchar(30)', (c) => c.notNull().defaultTo(''))
    .addColumn('user_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('channel_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('action', 'varchar(40)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'varchar(20)', (c) => c.notNull().defaultTo(''))
    .addColumn('fail_reason', col.longText, col.text)
    .addColumn('submit_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('finish_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('progress', 'varchar(20)', (c) => c.notNull().defaultTo(''))
    .addColumn('data', col.longText, col.text)
    .execute();
  await db.schema.createIndex('idx_tasks_user_submit').on('tasks').columns(['user_id', 'submit_time']).execute();
  await db.schema.createIndex('idx_tasks_channel_submit').on('tasks').columns(['channel_id', 'submit_time']).execute();
  await db.schema.createIndex('idx_tasks_submit').on('tasks').column('submit_time').execute();
  await db.schema.createIndex('idx_tasks_task_id').on('tasks').column('task_id').execute();

  // No log filter or lookup reads request_id (it is shown, never searched).
  const drop = db.schema.dropIndex('idx_logs_request');
  await (dialect === 'mysql' ? drop.on('logs') : drop).execute();
}
