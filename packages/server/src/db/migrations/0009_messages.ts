import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/** Admin messages and their per-recipient receipts (read_at null = unread). */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('messages'))
    .addColumn('title', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .addColumn('content', col.longText, col.text)
    .addColumn('format', 'varchar(16)', (c) => c.notNull().defaultTo('markdown'))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('idx_messages_created').on('messages').column('created_at').execute();
  await col
    .id(db.schema.createTable('message_recipients'))
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('read_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('uq_message_recipients')
    .on('message_recipients')
    .columns(['message_id', 'user_id'])
    .unique()
    .execute();
  // The inbox: a user's receipts, newest message first; the unread count reads the same index.
  await db.schema
    .createIndex('idx_message_recipients_user')
    .on('message_recipients')
    .columns(['user_id', 'message_id'])
    .execute();
}
