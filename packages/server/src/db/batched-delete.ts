import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Rows per delete statement: small enough that no statement holds locks for long. */
export const DELETE_BATCH = 5000;

export interface BatchedDelete {
  /** Rows per statement (DELETE_BATCH unless given). */
  batch?: number;
  /** Pause between statements; 0 just yields so other queries run. */
  pauseMs?: number;
  /** Ends early between statements. */
  stop?: () => boolean;
}

/**
 * Deletes the rows of a log table created before `before`, `batch` rows per statement (oldest ids first: the id
 * of the batch-th oldest matching row bounds each statement). Returns how many rows were deleted.
 */
export async function deleteCreatedBefore(
  k: Kysely<Database>,
  table: 'logs' | 'audit_logs',
  before: number,
  opts: BatchedDelete = {},
): Promise<number> {
  const batch = opts.batch ?? DELETE_BATCH;
  // Both tables have the id and created_at columns used here; the cast only names the table.
  const t = table as 'logs';
  let deleted = 0;
  for (;;) {
    const edge = await k
      .selectFrom(t)
      .select('id')
      .where('created_at', '<', before)
      .orderBy('id')
      .limit(1)
      .offset(batch - 1)
      .executeTakeFirst();
    let q = k.deleteFrom(t).where('created_at', '<', before);
    if (edge) q = q.where('id', '<=', edge.id);
    const res = await q.executeTakeFirst();
    deleted += Number(res.numDeletedRows);
    if (!edge || opts.stop?.()) return deleted;
    await new Promise((resolve) => (opts.pauseMs ? setTimeout(resolve, opts.pauseMs) : setImmediate(resolve)));
  }
}
