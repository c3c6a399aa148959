import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';

/** Bytes the main database takes (SQLite: its file's pages; PostgreSQL and MySQL: the database's tables). */
export async function databaseBytes(db: Db): Promise<number> {
  if (db.dialect === 'sqlite') {
    const pages = db.sqlite?.pragma('page_count', { simple: true });
    const size = db.sqlite?.pragma('page_size', { simple: true });
    return Number(pages ?? 0) * Number(size ?? 0);
  }
  const q =
    db.dialect === 'postgres'
      ? sql<{ bytes: string | number }>`select pg_database_size(current_database()) as bytes`
      : sql<{
          bytes: string | number;
        }>`select coalesce(sum(data_length + index_length), 0) as bytes from information_schema.tables where table_schema = database()`;
  const { rows } = await q.execute(db.kysely);
  return Number(rows[0]?.bytes ?? 0);
}
