import { Worker } from 'node:worker_threads';

/**
 * Runs on its own thread, so a blocked main event loop cannot stop it: after `ms` it kills the process
 * (SIGKILL, the one signal nothing can hold up). It writes nothing, since a stuck output could hold it too.
 */
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.ms);
`;

/**
 * The last resort of a shutdown: kills this process after `ms` whatever the main thread is doing. It does
 * not keep the process alive; the returned function calls it off.
 */
export function startWatchdog(ms: number): () => void {
  const worker = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { pid: process.pid, ms },
    stdout: true,
    stderr: true,
  });
  worker.unref();
  // A failure to start leaves the main thread's own deadline in charge.
  worker.on('error', () => undefined);
  return () => void worker.terminate().catch(() => undefined);
}
