import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import { LogType, type LogFilter } from '@tollway/shared';
import { deleteCreatedBefore, type BatchedDelete } from '../../db/batched-delete.js';
import type { Db } from '../../db/connect.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { Database, LogsTable } from '../../db/schema.js';

export type LogRecord = Selectable<LogsTable>;
/** The filters of a query; userId set scopes it to one user (self views). */
export type LogScope = LogFilter & { userId?: number };

/**
 * The WHERE clause of a log query. Every filter is an equality or a created_at range, so each can use an
 * index: (created_at), (user_id, created_at), (type, created_at), (username, created_at),
 * (channel_id, created_at), (model_name, created_at); token name and group narrow what those return.
 */
function conditions(f: LogScope, time: 'range' | 'none') {
  return (eb: ExpressionBuilder<Database, 'logs'>) => {
    const c: Expression<SqlBool>[] = [];
    if (f.userId !== undefined) c.push(eb('user_id', '=', f.userId));
    if (f.type) c.push(eb('type', '=', f.type));
    if (f.username) c.push(eb('username', '=', f.username));
    if (f.token_name) c.push(eb('token_name', '=', f.token_name));
    if (f.model_name) c.push(eb('model_name', '=', f.model_name));
    if (f.channel) c.push(eb('channel_id', '=', f.channel));
    if (f.group) c.push(eb('group', '=', f.group));
    if (time === 'range' && f.start_timestamp) c.push(eb('created_at', '>=', f.start_timestamp));
    if (time === 'range' && f.end_timestamp) c.push(eb('created_at', '<=', f.end_timestamp));
    return eb.and(c);
  };
}

/** SQL for the usage logs (the relay's writer inserts them; this reads and prunes). */
export class LogsStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  /** Newest first. */
  page(f: LogScope, window: RowWindow): Promise<Slice<LogRecord>> {
    const base = this.k.selectFrom('logs').where(conditions(f, 'range'));
    return selectPage(base, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), window);
  }

  /** The newest `limit` logs of one token of the user (the user's index narrows them). */
  recentOfToken(userId: number, tokenId: number, limit: number): Promise<LogRecord[]> {
    return this.k
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('token_id', '=', tokenId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * quota: sum of consumption logs matching the filters and time range; rpm and tpm: consumption requests
   * and their prompt + completion tokens in the 60 seconds before `now` (same filters, no time range).
   */
  async stat(f: LogScope, now: number): Promise<{ quota: number; rpm: number; tpm: number }> {
    const consume = { ...f, type: LogType.Consume };
    const [total, recent] = await Promise.all([
      this.k
        .selectFrom('logs')
        .where(conditions(consume, 'range'))
        .select(sql<string | number | null>`sum(quota)`.as('quota'))
        .executeTakeFirstOrThrow(),
      this.k
        .selectFrom('logs')
        .where(conditions(consume, 'none'))
        .where('created_at', '>=', now - 60)
        .select([
          sql<string | number>`count(*)`.as('rpm'),
          sql<string | number | null>`sum(prompt_tokens + completion_tokens)`.as('tpm'),
        ])
        .executeTakeFirstOrThrow(),
    ]);
    return { quota: Number(total.quota ?? 0), rpm: Number(recent.rpm), tpm: Number(recent.tpm ?? 0) };
  }

  /** Deletes logs created before `before` in batches (see deleteCreatedBefore); returns how many. */
  deleteBefore(before: number, opts: BatchedDelete = {}): Promise<number> {
    return deleteCreatedBefore(this.k, 'logs', before, opts);
  }
}
