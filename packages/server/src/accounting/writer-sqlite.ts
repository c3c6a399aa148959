import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../db/schema.js';

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

  chargeUser(id: number, quota: number, requests: number): void {
    this.statement('UPDATE users SET quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?').run(quota, quota, requests, id);
  }

  chargeToken(id: number, quota: number, limited: boolean): void {
    if (limited) this.statement('UPDATE tokens SET remain_quota = remain_quota - ?, used_quota = used_quota + ? WHERE id = ?').run(quota, quota, id);
    else this.statement('UPDATE tokens SET used_quota = used_quota + ? WHERE id = ?').run(quota, id);
  }

  chargeChannel(id: number, quota: number): void {
    this.statement('UPDATE channels SET used_quota = used_quota + ? WHERE id = ?').run(quota, id);
  }

  /** One row per run; a column left undefined takes its default, as in Kysely's inserts. */
  insertLogs(rows: Insertable<LogsTable>[]): void {
    for (const row of rows) {
      const columns: string[] = [];
      const values: unknown[] = [];
      for (const [k, v] of Object.entries(row)) {
        if (v === undefined) continue;
        columns.push(k);
        values.push(v);
      }
      const key = columns.join(',');
      let insert = this.inserts.get(key);
      if (!insert) {
        insert = this.db.prepare(`INSERT INTO logs (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
        this.inserts.set(key, insert);
      }
      insert.run(values);
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
