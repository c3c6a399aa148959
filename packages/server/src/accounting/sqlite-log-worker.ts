import type { Worker } from 'node:worker_threads';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../db/schema.js';
import { sqliteDriverPackage } from '../db/sqlite-driver.js';
import { sqliteWorkerThread } from '../db/sqlite-worker-thread.js';
import { flatRuns, logChunks, logInsertSql, type FlatRun } from './log-rows.js';

/**
 * The log rows of a SQLite batch, inserted by a worker thread with its own connection to the database file: the
 * largest part of a batch (a row and its seven index entries) leaves the event loop. The batch's counters commit
 * first on the event loop with a marker in writer_batches (`owedLogsMarker`); the worker's transaction inserts the
 * rows only while the marker is there and deletes it, so a crash or a failure between the two halves has the rows
 * inserted once on replay. A batch applied whole by an earlier version (no marker) inserts nothing again.
 */

/** writer_batches' id of a batch whose counters are committed and whose log rows are not yet. */
export const owedLogsMarker = (batchId: string): string => `${batchId}${OWED_LOGS_SUFFIX}`;
const OWED_LOGS_SUFFIX = ':logs-owed';

/** A worker's transaction waits this long for the write lock (the event loop's own writes hold it for moments). */
const WORKER_BUSY_TIMEOUT_MS = 5_000;

/** One statement of a job: its SQL (prepared once in the worker) and `size` rows of the run from row `at`. */
interface JobChunk {
  sql: string;
  size: number;
  at: number;
}

interface Job {
  seq: number;
  marker: string;
  runs: { width: number; count: number; values: unknown[]; chunks: JobChunk[] }[];
}

/**
 * The worker: CommonJS evaluated in its thread (db/sqlite-worker-thread.ts). The statements are the event loop's
 * (log-rows.ts: multi-row inserts of 32, 8 and 1 rows), their SQL sent with each job and prepared once here.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ${WORKER_BUSY_TIMEOUT_MS}');
db.pragma('synchronous = NORMAL');
const statements = new Map();
const statement = (sql) => {
  let s = statements.get(sql);
  if (!s) statements.set(sql, (s = db.prepare(sql)));
  return s;
};
const owed = statement('SELECT 1 FROM writer_batches WHERE id = ?');
const paid = statement('DELETE FROM writer_batches WHERE id = ?');
const apply = db.transaction((job) => {
  if (owed.get(job.marker) === undefined) return false;
  for (const run of job.runs)
    for (const c of run.chunks)
      statement(c.sql).run(c.size === run.count ? run.values : run.values.slice(c.at * run.width, (c.at + c.size) * run.width));
  paid.run(job.marker);
  return true;
});
parentPort.on('message', (job) => {
  if (job === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ seq: job.seq, applied: apply.immediate(job) });
  } catch (err) {
    parentPort.postMessage({ seq: job.seq, error: String((err && err.message) || err) });
  }
});
`;

/** The log insert worker of one SQLite database file; `alive` false once it failed (the event loop inserts instead). */
export class SqliteLogWorker {
  private readonly worker: Worker;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (applied: boolean) => void; reject: (err: Error) => void }>();
  private failed = false;
  private stopping = false;
  private readonly exited: Promise<void>;
  private readonly sql = new Map<string, string>();

  private constructor(file: string, warn: (message: string) => void) {
    // Idle, the worker does not hold the process open (a writer a test left running); a job in flight does, so that
    // a process ending by itself (a shutdown) waits for its rows.
    ({ worker: this.worker, exited: this.exited } = sqliteWorkerThread(WORKER_SOURCE, { file }, sqliteDriverPackage()));
    this.worker.on('message', (m: { seq: number; applied?: boolean; error?: string }) => {
      const p = this.pending.get(m.seq);
      if (!p) return;
      this.pending.delete(m.seq);
      if (this.pending.size === 0) this.worker.unref();
      if (m.error !== undefined) p.reject(new Error(`sqlite log worker: ${m.error}`));
      else p.resolve(m.applied === true);
    });
    const fail = (why: string) => {
      if (this.failed) return;
      this.failed = true;
      if (!this.stopping) warn(`sqlite log worker: ${why}; the writer inserts log rows itself`);
      for (const p of this.pending.values()) p.reject(new Error(`sqlite log worker: ${why}`));
      this.pending.clear();
    };
    this.worker.on('error', (err) => fail(`failed (${err.message})`));
    this.worker.on('exit', (code) => fail(`ended (code ${code})`));
  }

  /** A worker for the file open on `handle`, or undefined for a database in memory (no other connection sees it). */
  static start(handle: SqliteDatabase, warn: (message: string) => void): SqliteLogWorker | undefined {
    if (handle.memory) return undefined;
    return new SqliteLogWorker(handle.name, warn);
  }

  get alive(): boolean {
    return !this.failed;
  }

  /** Inserts `rows` if `marker` is still owed, in one transaction; whether it applied. Rejects if the worker failed. */
  insertOwed(marker: string, rows: Insertable<LogsTable>[]): Promise<boolean> {
    if (this.failed) return Promise.reject(new Error('sqlite log worker: not running'));
    const runs = flatRuns(rows).map((run) => ({
      width: run.columns.length,
      count: run.count,
      values: run.values,
      chunks: logChunks(run.count).map(({ size, at }) => ({ sql: this.sqlOf(run, size), size, at })),
    }));
    const job: Job = { seq: ++this.seq, marker, runs };
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(job.seq, { resolve, reject });
      this.worker.postMessage(job);
    });
  }

  /** A run's insert of `size` rows (kept per column list and size, as the statements are). */
  private sqlOf(run: FlatRun, size: number): string {
    const key = `${size}:${run.key}`;
    let sql = this.sql.get(key);
    if (!sql) this.sql.set(key, (sql = logInsertSql(run.columns, size)));
    return sql;
  }

  /** Ends the worker after the job in progress (the writer stops it once its last batch is applied). */
  async stop(): Promise<void> {
    if (this.stopping) return this.exited;
    this.stopping = true;
    if (!this.failed) {
      this.worker.ref();
      this.worker.postMessage('stop');
    }
    await this.exited;
  }

  /** Ends the thread abruptly, as a crash would (tests). */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
