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
    const columns: string[] = [];
    for (const k of Object.keys(row)) if (row[k as keyof typeof row] !== undefined) columns.push(k);
    const key = columns.join(',');
    if (run?.key !== key) runs.push((run = { columns, key, rows: [] }));
    run.rows.push(row);
  }
  return runs;
}
