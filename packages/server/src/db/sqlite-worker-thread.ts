import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread with a connection of its own to a SQLite file (the checkpoints, the writer's log rows): `source` is
 * CommonJS evaluated in the thread, which finds the driver's resolved path in `workerData.driver`. It starts with no
 * flags of the process's own (`--input-type=module` would make the source ESM, a loader would run again) and does not
 * hold the process open; `exited` resolves when it ends.
 */
export function sqliteWorkerThread(
  source: string,
  data: Record<string, unknown>,
  driverPackage: string,
): { worker: Worker; exited: Promise<void> } {
  const driver = createRequire(import.meta.url).resolve(driverPackage);
  const worker = new Worker(source, { eval: true, execArgv: [], workerData: { ...data, driver } });
  worker.unref();
  return { worker, exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
}
