import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../db/schema.js';
import type { TimeSlicer } from '../lib/time-slice.js';
import type { HourlyUsage } from './writer-hourly.js';
import { flatRuns, logChunks, logInsertSql } from './log-rows.js';

/**
 * The writer's statements on SQLite, prepared once per database and run on its handle inside the batch's Kysely
 * transaction (one connection: they commit or roll back with it). A batch builds no query objects and parses no
 * SQL; Kysely's multi-row inserts were parsed afresh for every batch.
 */
export class SqliteBatchStatements {
  private readonly cache = new Map<string, Statement>();
  /** Log inserts by their column list. */
  private readonly inserts = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  private statement(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  batchApplied(id: string): boolean {
    return this.statement('SELECT 1 FROM writer_batches WHERE id = ?').get(id) !== undefined;
  }

  recordBatch(id: string, appliedAt: number): void {
    this.statement('INSERT INTO writer_batches (id, applied_at) VALUES (?, ?)').run(id, appliedAt);
  }

  forgetBatch(id: string): void {
    this.statement('DELETE FROM writer_batches WHERE id = ?').run(id);
  }

  /** `spent` leaves the wallet; `used` (the same, or a plan's charge) counts as the user's usage. */
  chargeUser(id: number, spent: number, used: number, requests: number): void {
    this.statement(
      'UPDATE users SET quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?',
    ).run(spent, used, requests, id);
  }

  chargePlan(id: number, quota: number): void {
    this.statement('UPDATE user_subscriptions SET amount_used = amount_used + ? WHERE id = ?').run(quota, id);
  }

  chargeToken(id: number, quota: number, limited: boolean): void {
    if (limited)
      this.statement('UPDATE tokens SET remain_quota = remain_quota - ?, used_quota = used_quota + ? WHERE id = ?').run(
        quota,
        quota,
        id,
      );
    else this.statement('UPDATE tokens SET used_quota = used_quota + ? WHERE id = ?').run(quota, id);
  }

  chargeChannel(id: number, quota: number): void {
    this.statement('UPDATE channels SET used_quota = used_quota + ? WHERE id = ?').run(quota, id);
  }

  /** Adds each (user, hour, model) sum to its quota_data row, or makes the row. */
  upsertHourly(rows: HourlyUsage[]): void {
    const upsert = this.statement(
      'INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (user_id, created_at, model_name) DO UPDATE SET username = excluded.username, count = quota_data.count + excluded.count, ' +
        'token_used = quota_data.token_used + excluded.token_used, quota = quota_data.quota + excluded.quota',
    );
    for (const r of rows) upsert.run(r.user_id, r.username, r.model_name, r.created_at, r.token_used, r.count, r.quota);
  }

  /**
   * Rows with the same columns go in multi-row statements of LOG_CHUNK_SIZES rows (each prepared once); a column left
   * undefined takes its default, as in Kysely's inserts. With `slicer`, the event loop gets a turn between statements
   * once a slice has run its budget (the batch's transaction stays open meanwhile).
   */
  async insertLogs(rows: Insertable<LogsTable>[], slicer?: TimeSlicer): Promise<void> {
    for (const run of flatRuns(rows)) await this.insertGroup(run.columns, run.key, run.values, run.count, slicer);
  }

  /** `count` rows of `columns`, their values flattened in `values`, in as few cached statements as the chunk sizes allow. */
  private async insertGroup(
    columns: string[],
    key: string,
    values: unknown[],
    count: number,
    slicer: TimeSlicer | undefined,
  ): Promise<void> {
    for (const { size, at } of logChunks(count)) {
      const cacheKey = `${size}:${key}`;
      let insert = this.inserts.get(cacheKey);
      if (!insert) {
        insert = this.db.prepare(logInsertSql(columns, size));
        this.inserts.set(cacheKey, insert);
      }
      insert.run(size === count ? values : values.slice(at * columns.length, (at + size) * columns.length));
      await slicer?.due();
    }
  }
}

const byDatabase = new WeakMap<SqliteDatabase, SqliteBatchStatements>();

/** The statements of one SQLite database (kept with it). */
export function sqliteBatchStatements(db: SqliteDatabase): SqliteBatchStatements {
  let s = byDatabase.get(db);
  if (!s) {
    s = new SqliteBatchStatements(db);
    byDatabase.set(db, s);
  }
  return s;
}
