import type { Expression, ExpressionBuilder, Insertable, Selectable, SqlBool } from 'kysely';
import type { AuditFilter } from '@tollway/shared';
import { deleteCreatedBefore, type BatchedDelete } from '../../db/batched-delete.js';
import type { Db } from '../../db/connect.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { AuditLogsTable, Database } from '../../db/schema.js';

export type AuditRecord = Selectable<AuditLogsTable>;
export type NewAuditRecord = Insertable<AuditLogsTable>;

/** Every filter is an equality or a created_at range, each served by one of the table's indexes. */
function conditions(f: Partial<AuditFilter>) {
  return (eb: ExpressionBuilder<Database, 'audit_logs'>) => {
    const c: Expression<SqlBool>[] = [];
    if (f.actor_id) c.push(eb('actor_id', '=', f.actor_id));
    if (f.actor) c.push(eb('actor_name', '=', f.actor));
    if (f.action) c.push(eb('action', '=', f.action));
    if (f.target_type) c.push(eb('target_type', '=', f.target_type));
    if (f.target_id) c.push(eb('target_id', '=', f.target_id));
    if (f.outcome) c.push(eb('outcome', '=', f.outcome));
    if (f.start_timestamp) c.push(eb('created_at', '>=', f.start_timestamp));
    if (f.end_timestamp) c.push(eb('created_at', '<=', f.end_timestamp));
    return eb.and(c);
  };
}

/** SQL for the audit log (in the log database). */
export class AuditStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  async insert(row: NewAuditRecord): Promise<void> {
    await this.k.insertInto('audit_logs').values(row).execute();
  }

  /** Newest first. */
  page(f: Partial<AuditFilter>, window: RowWindow): Promise<Slice<AuditRecord>> {
    const base = this.k.selectFrom('audit_logs').where(conditions(f));
    return selectPage(base, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), window);
  }

  /** Deletes rows created before `before` in batches, as the usage logs' pruning does; returns how many. */
  deleteBefore(before: number, opts: BatchedDelete = {}): Promise<number> {
    return deleteCreatedBefore(this.k, 'audit_logs', before, opts);
  }
}
