import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/** What rows refunded before these columns existed are stamped with, so no sweep refunds them again. */
const BEFORE_0017 = 'before-0017';

/**
 * Task billing that survives a crash: `charge_batch` and `refund_batch` name the writer batch that applied a task's
 * charge and its refund (each applies once, the refund only after the charge), and `tasks.upstream_task_id` keeps
 * the upstream's id apart from the public `task_id` callers see.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  for (const table of ['midjourneys', 'tasks']) {
    for (const column of ['charge_batch', 'refund_batch']) {
      await db.schema
        .alterTable(table)
        .addColumn(column, 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute();
    }
    // Tasks written before this version were charged at submit; failed ones were refunded then.
    await sql`UPDATE ${sql.table(table)} SET charge_batch = ${BEFORE_0017} WHERE quota > 0`.execute(db);
    await sql`UPDATE ${sql.table(table)} SET refund_batch = ${BEFORE_0017} WHERE quota > 0 AND status = 'FAILURE'`.execute(
      db,
    );
  }
  await db.schema
    .alterTable('tasks')
    .addColumn('upstream_task_id', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`UPDATE tasks SET upstream_task_id = task_id`.execute(db);
  await db.schema.createIndex('idx_tasks_upstream_task_id').on('tasks').column('upstream_task_id').execute();
  await db.schema.createIndex('idx_tasks_refund_batch').on('tasks').columns(['status', 'refund_batch']).execute();
  await db.schema.createIndex('idx_mj_refund_batch').on('midjourneys').columns(['status', 'refund_batch']).execute();
}
