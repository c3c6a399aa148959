import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import type { TableReport } from './report.js';
import type { Row } from './values.js';

/** Character limits of a target table's varchar columns (PostgreSQL and MySQL enforce them; SQLite does not). */
export async function columnLimits(dst: Db, table: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (dst.dialect === 'sqlite') return out;
  const schema = dst.dialect === 'postgres' ? sql`current_schema()` : sql`database()`;
  const rows = await sql<{ c: string; n: unknown }>`
    SELECT column_name AS c, character_maximum_length AS n FROM information_schema.columns
    WHERE table_schema = ${schema} AND table_name = ${table} AND character_maximum_length IS NOT NULL`.execute(
    dst.kysely,
  );
  for (const r of rows.rows) {
    const n = Number(r.n);
    // Text columns report huge limits: only varchar ones matter.
    if (n > 0 && n < 65536) out.set(r.c.toLowerCase(), n);
  }
  return out;
}

/**
 * Fits a row into the target's column limits: a value too long for a column that identifies the row (a key) skips
 * the row; any other is cut, with a note. Returns the skip reason, if any.
 */
export function fitRow(
  row: Row,
  limits: Map<string, number>,
  identifying: string[],
  table: string,
  report: TableReport,
  example: string,
): string | undefined {
  for (const [column, limit] of limits) {
    const value = row[column];
    if (typeof value !== 'string' || value.length <= limit) continue;
    const chars = Array.from(value);
    if (chars.length <= limit) continue;
    if (identifying.includes(column)) return `${column} longer than the ${limit} characters Tollway keeps`;
    row[column] = chars.slice(0, limit).join('');
    report.note(`${table}.${column} longer than ${limit} characters: cut`, example);
  }
  return undefined;
}
