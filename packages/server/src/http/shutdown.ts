import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError } from '../config.js';
import { startWatchdog } from './shutdown-watchdog.js';

/** Seconds a shutdown may take before the process exits anyway (SHUTDOWN_TIMEOUT). */
export const DEFAULT_SHUTDOWN_TIMEOUT_S = 25;
/** Longest SHUTDOWN_TIMEOUT (a day; far below a timer's limit of about 24.8 days). */
const MAX_SHUTDOWN_TIMEOUT_S = 86_400;
/** Connections still open this long before the deadline are cut, leaving the rest for settling and flushing… */
const CUT_MARGIN_MS = 5_000;
/** …or this share of a short grace period. */
const CUT_MARGIN_SHARE = 0.4;
/** How long the last log lines may take to go out before an exit. */
const LOG_DRAIN_MS = 500;
const FORCED_LOG_DRAIN_MS = 200;
/** The runtime's close (the writer's last batches) ends this long before the deadline, leaving time to exit. */
const CLOSE_MARGIN_MS = 1_000;
/** After the deadline, the watchdog thread kills a process whose main thread could not exit. */
const WATCHDOG_EXTRA_MS = 2_000;

/** The signals that stop the server gracefully (SIGHUP: the terminal or the parent is gone). */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** The stop reason logged when the parent's IPC channel closes. */
const PARENT_GONE = 'parent gone';

/** SHUTDOWN_TIMEOUT in milliseconds: whole seconds, 1 to a day, default 25. */
export function readShutdownTimeout(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SHUTDOWN_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_SHUTDOWN_TIMEOUT_S * 1000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SHUTDOWN_TIMEOUT_S) {
    throw new ConfigError(
      'SHUTDOWN_TIMEOUT',
      `must be whole seconds from 1 to ${MAX_SHUTDOWN_TIMEOUT_S}, got "${raw}"`,
    );
  }
  return n * 1000;
}

/** When, after the stop began, connections still open are cut. */
export function cutAfterMs(graceMs: number): number {
  return Math.round(graceMs - Math.min(CUT_MARGIN_MS, graceMs * CUT_MARGIN_SHARE));
}

export interface ShutdownTarget {
  /** The HTTP app: close() stops accepting and waits for the requests in flight. */
  app: { close(): Promise<unknown>; server: Pick<Server, 'closeAllConnections'> };
  /** Stops timers, flushes the writer and closes the databases. */
  runtime: { close(opts?: { deadline?: number }): Promise<void> };
  log: Logger;
  /** The log output, drained (briefly) before each exit. */
  output: { drained(timeoutMs: number): Promise<void> };
  graceMs: number;
  exit?: (code: number) => void;
}

/**
 * Stops the server on SIGTERM, SIGINT or SIGHUP: no new connections; requests in flight (relay streams
 * included) may finish until shortly before the deadline, when the connections left are cut (a cut stream is
 * billed for what it delivered); then the runtime closes and the process exits 0. At the deadline it exits 1
 * whatever is still pending; a watchdog thread kills it soon after if even that cannot run. A signal while
 * stopping changes nothing. A parent connected by IPC that goes away stops it the same way.
 */
export function stopOnSignals(target: ShutdownTarget): void {
  const exit = target.exit ?? ((code: number) => process.exit(code));
  const { log, graceMs } = target;
  let stopping = false;
  const logSafely = (write: () => void) => {
    try {
      write();
    } catch {
      // Logging never decides whether the process stops.
    }
  };

  const stop = async (signal: string) => {
    if (stopping) {
      logSafely(() => log.info({ signal }, 'already shutting down'));
      return;
    }
    stopping = true;
    const stopStarted = Date.now();
    // Left referenced on purpose: the deadline holds even if everything else has gone quiet.
    setTimeout(() => {
      logSafely(() => log.error({ graceMs }, 'shutdown took too long; exiting'));
      void target.output.drained(FORCED_LOG_DRAIN_MS).then(() => exit(1));
    }, graceMs);
    try {
      startWatchdog(graceMs + WATCHDOG_EXTRA_MS);
    } catch (err) {
      logSafely(() => log.warn({ err }, 'shutdown: no watchdog thread; the deadline timer alone ends the process'));
    }
    const cut = setTimeout(() => {
      logSafely(() => log.warn('shutdown: cutting the connections still open'));
      target.app.server.closeAllConnections();
    }, cutAfterMs(graceMs));
    logSafely(() => log.info({ signal, graceMs }, 'shutting down: no new connections, finishing in-flight requests'));
    let code = 0;
    try {
      await target.app.close();
      clearTimeout(cut);
      // The writer may retry its last batches until shortly before the deadline; what it cannot write stays in
      // the journal for the next start.
      await target.runtime.close({ deadline: stopStarted + graceMs - CLOSE_MARGIN_MS });
      logSafely(() => log.info('shutdown complete'));
    } catch (err) {
      logSafely(() => log.error({ err }, 'shutdown failed'));
      code = 1;
    }
    await target.output.drained(LOG_DRAIN_MS);
    exit(code);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => void stop(signal));
  // Started with an IPC channel (`npm start`): its closing means the parent died; stop rather than run orphaned.
  if (process.channel) {
    if (!process.connected) void stop(PARENT_GONE);
    else process.once('disconnect', () => void stop(PARENT_GONE));
  }
}
