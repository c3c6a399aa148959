import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';

/** A stored answer's row as read back. */
export interface AnswerRow {
  model: string;
  status: number;
  content_type: string;
  body: string;
  usage: string;
  expires_at: number;
}

/** A stored answer's row as written (its key aside). */
export type AnswerValues = AnswerRow & { bytes: number; created_at: number };

const COLUMNS = ['model', 'status', 'content_type', 'body', 'usage', 'bytes', 'created_at', 'expires_at'] as const;

/**
 * The response cache's read and write on SQLite, prepared once: the read of one key, and an upsert (a request stored
 * again takes the new answer). Kysely would compile and prepare both on every call.
 */
export class SqliteAnswerStatements {
  private readonly select: Statement<[string], AnswerRow>;
  private readonly insert: Statement<[string, ...unknown[]]>;
  private readonly update: Statement<unknown[]>;

  constructor(db: SqliteDatabase) {
    this.select = db.prepare(
      'SELECT model, status, content_type, body, usage, expires_at FROM response_cache WHERE cache_key = ?',
    );
    this.insert = db.prepare(
      `INSERT INTO response_cache (cache_key, ${COLUMNS.join(', ')}) VALUES (?, ${COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (cache_key) DO NOTHING`,
    );
    this.update = db.prepare(
      `UPDATE response_cache SET ${COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE cache_key = ?`,
    );
  }

  read(key: string): AnswerRow | undefined {
    return this.select.get(key);
  }

  /** Inserts the answer, or replaces the one under its key; true when a row was added. */
  write(key: string, v: AnswerValues): boolean {
    const values = COLUMNS.map((c) => v[c]);
    if (this.insert.run(key, ...values).changes > 0) return true;
    this.update.run(...values, key);
    return false;
  }
}
