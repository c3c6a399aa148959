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
