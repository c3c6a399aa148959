import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Online top-up orders (Epay). Columns follow new-api's top_ups table. The unique trade_no is what the
 * payment notify finds its order by; (user_id, id) serves a user's newest-first record list.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('top_ups'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('money', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('trade_no', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('payment_method', 'varchar(50)', (c) => c.notNull().defaultTo(''))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('complete_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'varchar(32)', (c) => c.notNull().defaultTo('pending'))
    .execute();
  await db.schema.createIndex('idx_top_ups_user').on('top_ups').columns(['user_id', 'id']).execute();
}
