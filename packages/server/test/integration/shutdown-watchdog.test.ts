import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const SCRIPT = path.resolve(import.meta.dirname, '../support/shutdown-stuck.ts');
const GRACE_MS = 1_000;
/** The watchdog acts this long after the deadline (its own margin plus starting a thread under load). */
const WATCHDOG_BY_MS = 4_000;

/** The last resort: a stop whose main thread never comes back still ends, killed from another thread. */
it('kills a process whose shutdown blocks the main thread, soon after the deadline', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, String(GRACE_MS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.on('exit', () => reject(new Error('exited before ready')));
  });
  const sent = Date.now();
  child.kill('SIGTERM');
  try {
    const exit = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(r, GRACE_MS + WATCHDOG_BY_MS))]);
    expect(exit?.signal).toBe('SIGKILL');
    expect(exit!.at - sent).toBeGreaterThanOrEqual(GRACE_MS);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
