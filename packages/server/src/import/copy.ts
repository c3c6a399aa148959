import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db } from '../db/connect.js';
import { columnLimits, fitRow } from './limits.js';
import { Progress, TableReport } from './report.js';
import type { SourceDb } from './source.js';
import { num, type Row } from './values.js';

/** Source rows read per query (keyset pagination by id): a large table never sits in memory. */
export const BATCH = 1000;
/** Bound parameters per INSERT, under every dialect's limit (SQLite's is 32766). */
const MAX_PARAMS = 16000;

// Tables are chosen at run time: rows are plain records on both sides.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseTrx = Transaction<any>;

/** How one source table becomes one Tollway table. */
export interface TableSpec {
  source: string;
  target: string;
  /** The target's key column (default id): a row whose key is there is left alone. */
  key?: string;
  /** Narrows the source rows (e.g. logs since a date). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  filter?: (q: any) => any;
  /** The target row, or the reason the row is skipped. `id` is the target id (offset applied). */
  map(row: Row, report: TableReport): Row | string;
  /** Target columns that must not collide with a row already there (merge): such rows are skipped. */
  uniques?: string[];
  /** Unique columns whose taken value is replaced (with a note) instead of skipping the row: column → new value. */
  renew?: Record<string, { note: string; value: (row: Row) => unknown }>;
  /** Target column → the table whose row it must name (rows naming a missing one are skipped). */
  requires?: { column: string; table: string; what: string };
  /** Quota columns summed over skipped rows, so the quota check can leave them out. */
  sums?: string[];
  /** Runs in the transaction that inserted a batch, with the inserted rows. */
  after?: (trx: LooseTrx, rows: Row[]) => Promise<void>;
}

export interface CopyOptions {
  write: (line: string) => void;
  /** A dry run: PostgreSQL's sequences are left alone (setval is not undone by a rollback). */
  dryRun: boolean;
}

const sumsOf = (row: Row, cols: string[] = []) => Object.fromEntries(cols.map((c) => [c, num(row[c])]));

async function existing(k: Loose | LooseTrx, table: string, column: string, values: unknown[]): Promise<Set<string>> {
  if (values.length === 0) return new Set();
  const rows = (await k
    .selectFrom(table)
    .select(sql.ref(column).as('v'))
    .where(sql.ref(column), 'in', values)
    .execute()) as { v: unknown }[];
  return new Set(rows.map((r) => String(r.v)));
}

/** Copies one table in id order, batch by batch; every row is written at most once (rows whose id is there are left alone). */
export async function copyTable(src: SourceDb, dst: Db, spec: TableSpec, opts: CopyOptions): Promise<TableReport> {
  const report = new TableReport(spec.target);
  if (!src.tables.has(spec.source)) {
    opts.write(`${spec.target}: no "${spec.source}" table in the source`);
    return report;
  }
  const base = () =>
    spec.filter ? spec.filter(src.kysely.selectFrom(spec.source)) : src.kysely.selectFrom(spec.source);
  const counted = (await base()
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirst()) as { n: unknown } | undefined;
  const progress = new Progress(spec.target, num(counted?.n), opts.write);
  const k = dst.kysely as unknown as Loose;
  const limits = await columnLimits(dst, spec.target);
  const identifying = [spec.key ?? 'id', ...(spec.uniques ?? [])];
  let last = -1;
  for (;;) {
    const rows = (await base().selectAll().where('id', '>', last).orderBy('id').limit(BATCH).execute()) as Row[];
    if (rows.length === 0) break;
    last = num(rows[rows.length - 1]!.id);
    report.read += rows.length;
    // Every line of the report names the source's id (the target's may be shifted by a merge).
    const label = new Map<Row, string>();
    let fresh: Row[] = [];
    for (const r of rows) {
      const example = `id ${num(r.id)}`;
      const m = spec.map(r, report);
      const tooLong = typeof m === 'string' ? undefined : fitRow(m, limits, identifying, spec.target, report, example);
      if (typeof m === 'string' || tooLong)
        report.skip(typeof m === 'string' ? m : tooLong!, example, sumsOf(r, spec.sums));
      else {
        label.set(m, example);
        fresh.push(m);
      }
    }
    const key = spec.key ?? 'id';
    const present = await existing(
      k,
      spec.target,
      key,
      fresh.map((m) => m[key]),
    );
    report.present += fresh.filter((m) => present.has(String(m[key]))).length;
    fresh = fresh.filter((m) => !present.has(String(m[key])));
    for (const column of spec.uniques ?? []) {
      const taken = await existing(
        k,
        spec.target,
        column,
        fresh.map((m) => m[column]).filter((v) => v !== '' && v !== null && v !== undefined),
      );
      const renew = spec.renew?.[column];
      fresh = fresh.filter((m) => {
        if (!taken.has(String(m[column]))) return true;
        if (renew) {
          m[column] = renew.value(m);
          report.note(renew.note, label.get(m)!);
          return true;
        }
        report.skip(
          `${column} already used by another ${spec.target} row in the target`,
          label.get(m)!,
          sumsOf(m, spec.sums),
        );
        return false;
      });
    }
    if (spec.requires) {
      const { column, table, what } = spec.requires;
      const found = await existing(k, table, 'id', [...new Set(fresh.map((m) => m[column]))]);
      fresh = fresh.filter((m) => {
        if (found.has(String(m[column]))) return true;
        report.skip(`its ${what} is not in the target (not imported)`, label.get(m)!, sumsOf(m, spec.sums));
        return false;
      });
    }
    if (fresh.length > 0) report.written += await insertBatch(k, spec, fresh, report, label);
    progress.tick(report.read);
  }
  progress.tick(report.read, true);
  // Also on a re-run: a run cut between a batch and this line left the sequence behind.
  if (!opts.dryRun && report.read > 0 && !spec.key) await syncSequence(dst, spec.target);
  return report;
}

/** Writes a batch in one transaction; when the database refuses it, row by row, skipping (and reporting) each refused row. */
async function insertBatch(
  k: Loose,
  spec: TableSpec,
  rows: Row[],
  report: TableReport,
  label: Map<Row, string>,
): Promise<number> {
  const write = (list: Row[]) =>
    k.transaction().execute(async (trx) => {
      const chunk = Math.max(1, Math.floor(MAX_PARAMS / Object.keys(list[0]!).length));
      for (let i = 0; i < list.length; i += chunk) {
        await trx
          .insertInto(spec.target)
          .values(list.slice(i, i + chunk))
          .execute();
      }
      if (spec.after) await spec.after(trx, list);
    });
  try {
    await write(rows);
    return rows.length;
  } catch {
    let written = 0;
    for (const row of rows) {
      try {
        await write([row]);
        written++;
      } catch (err) {
        report.skip(
          `refused by the database: ${(err as Error).message.split('\n')[0]}`,
          label.get(row) ?? `id ${num(row.id ?? row[spec.key ?? 'id'])}`,
          sumsOf(row, spec.sums),
        );
      }
    }
    return written;
  }
}

/** PostgreSQL's serial sequence moves past the copied ids (never back), so rows created later get new ones. */
export async function syncSequence(dst: Db, table: string): Promise<void> {
  if (dst.dialect !== 'postgres') return;
  const seq = sql`pg_get_serial_sequence(${table}, 'id')`;
  await sql`SELECT setval(${seq}, GREATEST((SELECT COALESCE(MAX(id), 0) FROM ${sql.table(table)}), COALESCE(pg_sequence_last_value(${seq}::regclass), 0), 1))`.execute(
    dst.kysely,
  );
}
