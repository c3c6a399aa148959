import type { Insertable } from 'kysely';
import type { Db } from '../db/connect.js';
import type { LogsTable } from '../db/schema.js';
import { TimeSlicer } from '../lib/time-slice.js';
import { nowSeconds } from '../lib/time.js';
import { owedLogsMarker, type SqliteLogWorker } from './sqlite-log-worker.js';
import { applyBatch, type WriteRecord } from './writer-apply.js';
import { stampedBy } from './writer-once.js';
import { sqliteBatchStatements, type SqliteBatchStatements } from './writer-sqlite.js';

/**
 * On SQLite a batch's counters run on the event loop (its driver is synchronous): a slice this long, then the loop's
 * I/O gets a turn, so calls in flight wait at most about this long for a batch instead of its whole length (a
 * 140-row batch took 2–13 ms, the added p99 of a steady load).
 */
const SQLITE_SLICE_MS = 1;

/** Where a batch goes: the main database, the log database (the same one unless LOG_SQL_DSN), SQLite's log worker. */
export interface CommitTargets {
  db: Db;
  logDb: Db;
  logWorker: SqliteLogWorker | undefined;
}

export interface WriterBatch {
  id: string;
  records: WriteRecord[];
  hourly?: boolean;
}

/**
 * Applies a batch, each part recording the batch id where it commits, so that a batch half applied before a failure
 * or crash has only its other half applied on retry or replay: in one transaction; with a separate log database in
 * two (counters first, then logs); on a SQLite file with its log worker in two as well, the log rows owed by a marker
 * the counters' transaction records (sqlite-log-worker.ts). Copies a task's row already took go to `dropped`.
 * True when anything was applied.
 */
export async function commitBatch(t: CommitTargets, batch: WriterBatch, dropped: WriteRecord[]): Promise<boolean> {
  const { db, logDb } = t;
  const now = nowSeconds();
  const hourly = batch.hourly ? db.dialect : undefined;
  const sqlite = db.sqlite && sqliteBatchStatements(db.sqlite);
  const slicer = db.sqlite || logDb.sqlite ? new TimeSlicer(SQLITE_SLICE_MS) : undefined;
  const postgresLogs = logDb.dialect === 'postgres';
  const split = logDb !== db || (sqlite !== undefined && t.logWorker !== undefined);
  // Split: the counters' transaction records the batch id (and, for the log worker, that its rows are owed).
  const owedLogs = split && logDb === db;
  const counted = await db.kysely
    .transaction()
    .execute((trx) =>
      applyBatch(
        trx,
        batch.id,
        batch.records,
        now,
        { counters: true, logs: !split, owedLogs, hourly, sqlite, postgresLogs, slicer },
        dropped,
      ),
    );
  if (!split || !batch.records.some((r) => r.log)) return counted;
  const kept = await stampedBy(db.kysely, batch.id, batch.records);
  if (owedLogs) {
    const rows = kept.flatMap((r) => (r.log ? [r.log] : []));
    const marker = owedLogsMarker(batch.id);
    const logged = t.logWorker?.alive
      ? await t.logWorker.insertOwed(marker, rows)
      : await insertOwedHere(db, sqlite!, marker, rows, slicer);
    return counted || logged;
  }
  const logged = await logDb.kysely.transaction().execute((trx) =>
    applyBatch(trx, batch.id, kept, now, {
      counters: false,
      logs: true,
      sqlite: logDb.sqlite && sqliteBatchStatements(logDb.sqlite),
      postgresLogs,
      slicer,
    }),
  );
  return counted || logged;
}

/** The log worker's transaction on the event loop (the worker failed): the same rows, only while they are owed. */
function insertOwedHere(
  db: Db,
  sqlite: SqliteBatchStatements,
  marker: string,
  rows: Insertable<LogsTable>[],
  slicer: TimeSlicer | undefined,
): Promise<boolean> {
  return db.kysely.transaction().execute(async () => {
    if (!sqlite.batchApplied(marker)) return false;
    await sqlite.insertLogs(rows, slicer);
    sqlite.forgetBatch(marker);
    return true;
  });
}
