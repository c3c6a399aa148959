import type { Database as SqliteDatabase } from 'better-sqlite3';
import { sqliteWorkerThread } from './sqlite-worker-thread.js';

/**
 * Moves a SQLite database's WAL checkpoints off the event loop. SQLite runs an automatic checkpoint inside the commit
 * that fills the WAL to 1,000 pages: it copies the pages back and fsyncs the WAL and the database file, 10–20 ms on
 * the event loop every few seconds under load (the p99 of a steady load was those pauses). Here the handle's
 * automatic checkpoints are turned off and a worker thread with its own connection runs a PASSIVE checkpoint (it
 * never waits for or blocks the handle's writers) every CHECKPOINT_INTERVAL_MS. Should the worker fail, the handle's
 * automatic checkpoints come back.
 */

/** How often the worker checkpoints: under load the WAL then holds about a second of writes. */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/** SQLite's own default, restored when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1_000;
/** A checkpoint waits this long for a lock another connection holds for a moment (a schema change). */
const WORKER_BUSY_TIMEOUT_MS = 5_000;

/** The worker: CommonJS evaluated in its thread, the driver loaded from the path the main thread resolved. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ${WORKER_BUSY_TIMEOUT_MS}');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ failed: String(err && err.message) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface SqliteCheckpointer {
  /** Runs a last checkpoint and ends the worker (before the handle closes). */
  stop(): Promise<void>;
}

/**
 * Starts the checkpoint worker for the database file `file` open on `handle`; `driverPackage` is the driver's package
 * name (the line the handle was opened with). `warn` hears of a failed checkpoint or a worker that ended early.
 */
export function startSqliteCheckpointer(
  handle: SqliteDatabase,
  file: string,
  driverPackage: string,
  warn: (message: string) => void,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): SqliteCheckpointer {
  handle.pragma('wal_autocheckpoint = 0');
  // The process may exit with the worker running (a test's database left open): it holds no work of its own.
  const { worker, exited } = sqliteWorkerThread(WORKER_SOURCE, { file, intervalMs }, driverPackage);
  let stopping = false;
  let fellBack = false;
  const fallBack = (why: string) => {
    if (stopping || fellBack || !handle.open) return;
    fellBack = true;
    warn(`sqlite checkpoints: ${why}; the connection checkpoints by itself again`);
    handle.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (m: { failed?: string }) => {
    if (m.failed) warn(`sqlite checkpoint failed: ${m.failed}`);
  });
  worker.on('error', (err) => fallBack(`the checkpoint worker failed (${err.message})`));
  worker.on('exit', (code) => fallBack(`the checkpoint worker ended (code ${code})`));
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}
