import type { Insertable } from 'kysely';
import type { LogsTable } from '../db/schema.js';

/** Consecutive log rows that define the same columns (a column left undefined takes its default). */
export interface ColumnRun {
  columns: string[];
  /** The columns joined with commas: a cache key for the run's statement. */
  key: string;
  rows: Insertable<LogsTable>[];
}

/** Splits rows, in order, into runs of rows with the same defined columns; most batches are a single run. */
export function columnRuns(rows: Insertable<LogsTable>[]): ColumnRun[] {
  const runs: ColumnRun[] = [];
  let run: ColumnRun | undefined;
  for (const row of rows) {
    // A row like the run's last (the usual case: every call's row is built the same way) joins it with no
    // column list made for it.
    if (run && sameColumns(row, run.columns)) {
      run.rows.push(row);
      continue;
    }
    const columns: string[] = [];
    for (const k of Object.keys(row)) if (row[k as keyof typeof row] !== undefined) columns.push(k);
    const key = columns.join(',');
    if (run?.key !== key) runs.push((run = { columns, key, rows: [] }));
    run.rows.push(row);
  }
  return runs;
}

/** Whether `row`'s defined columns are `columns`, in that order. */
function sameColumns(row: Insertable<LogsTable>, columns: readonly string[]): boolean {
  let i = 0;
  for (const k in row) {
    if (row[k as keyof typeof row] === undefined) continue;
    if (columns[i] !== k) return false;
    i++;
  }
  return i === columns.length;
}

/** Rows of one column list, their values flattened in order: `count` rows of `columns.length` values each. */
export interface FlatRun {
  key: string;
  columns: string[];
  values: unknown[];
  count: number;
}

/** `columnRuns` with each run's values flattened (a statement's parameters, or a message to a worker). */
export function flatRuns(rows: Insertable<LogsTable>[]): FlatRun[] {
  return columnRuns(rows).map((run) => {
    const values: unknown[] = [];
    const width = run.columns.length;
    for (const row of run.rows) {
      // A row with no undefined cell has exactly the run's columns, in order: its values as they are.
      const own = Object.values(row);
      if (own.length === width) for (let i = 0; i < width; i++) values.push(own[i]);
      else for (const c of run.columns) values.push(row[c as keyof typeof row]);
    }
    return { key: run.key, columns: run.columns, values, count: run.rows.length };
  });
}

/**
 * Rows per log insert statement: a batch's rows go in the largest first (SQLite allows 32,766 parameters). 32 rows
 * take about 0.5 ms (16 µs a row with the logs table's indexes), so a slice's budget is overrun by little; 128-row
 * statements cost no less per row.
 */
const LOG_CHUNK_SIZES = [32, 8, 1];

/** The statements of a run of `count` rows: `size` rows from row `at`, largest first. */
export function logChunks(count: number): { size: number; at: number }[] {
  const out: { size: number; at: number }[] = [];
  let at = 0;
  for (const size of LOG_CHUNK_SIZES) for (; count - at >= size; at += size) out.push({ size, at });
  return out;
}

/**
 * The multi-row insert of `size` rows of `columns` (a column left out takes its default). `OR FAIL`: a row refused
 * by a constraint ends the statement without undoing the rows before it, so SQLite keeps no statement journal. With
 * the default `ABORT` it first copies every page of the logs table and its seven indexes that the statement changes,
 * to a temporary file once past 64 KiB: 3.1 KB written a row where the WAL takes 0.7 KB (the log worker test), two
 * write(2) calls a row more. Nothing is left half done: every log insert runs inside its batch's transaction, which a
 * failed statement rolls back whole.
 */
export function logInsertSql(columns: readonly string[], size: number): string {
  const row = `(${columns.map(() => '?').join(', ')})`;
  return `INSERT OR FAIL INTO logs (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${Array.from({ length: size }, () => row).join(', ')}`;
}
