import { buildApp } from './app.js';
import { createRuntime } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { readShutdownTimeout, stopOnSignals } from './http/shutdown.js';
import { startIdleMemoryRelease } from './lib/idle-memory.js';
import { ignoreStdioErrors, stderrLog } from './log-output.js';
import { createLogger } from './logger.js';
import { logOutputs, stdoutAndFile } from './log-file.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { startUrl } from './start-url.js';

/**
 * Connections the kernel may hold for accept(2). The kernel lowers it to net.core.somaxconn (as Go servers such as
 * new-api ask for); Node's default of 511 overflowed when thousands of streams connected within seconds (each
 * overflow is a dropped SYN the client retries a second later).
 */
const LISTEN_BACKLOG = 65_535;

/** Exit code of a configuration or start-up error (EX_CONFIG). */
const EXIT_CONFIG = 78;
/** How long a start-up error message may take to go out before the exit. */
const MESSAGE_DRAIN_MS = 500;

/** Writes a start-up failure to stderr (never blocking, never throwing), cleans up and exits 78. */
async function fail(message: string, cleanUp?: () => Promise<void>): Promise<never> {
  const err = stderrLog();
  err.write(`tollway: ${message}\n`);
  await cleanUp?.();
  await err.drained(MESSAGE_DRAIN_MS);
  process.exit(EXIT_CONFIG);
}

/** Starts Tollway: config → database and migrations → HTTP server; stops gracefully on SIGTERM/SIGINT/SIGHUP. */
async function main(): Promise<void> {
  ignoreStdioErrors();
  let config;
  let graceMs;
  try {
    config = loadConfig();
    graceMs = readShutdownTimeout();
  } catch (err) {
    if (err instanceof ConfigError) return fail(`invalid configuration: ${err.message}`);
    throw err;
  }
  let destination;
  try {
    destination = config.logDir ? stdoutAndFile(config.logDir) : undefined;
  } catch (err) {
    return fail(`LOG_DIR: cannot write a log file there: ${(err as Error).message}`);
  }
  const log = createLogger(config.logLevel, destination);
  let runtime;
  try {
    runtime = await createRuntime(config, log);
  } catch (err) {
    const msg = err instanceof ConfigError ? err.message : `database start-up failed: ${(err as Error).message}`;
    return fail(msg);
  }
  const { app } = await buildApp(runtime.ctx);
  const host = process.env.HOST || '0.0.0.0';
  try {
    await app.listen({ port: config.port, host, backlog: LISTEN_BACKLOG });
  } catch (err) {
    return fail(`PORT: cannot listen on ${config.port}: ${(err as Error).message}`, () => runtime.close());
  }
  if (config.metricsPort) {
    try {
      await startMetricsServer({ port: config.metricsPort, host: config.metricsHost, token: config.metricsToken }, log);
    } catch (err) {
      return fail(
        `METRICS_PORT: cannot listen on ${config.metricsHost}:${config.metricsPort}: ${(err as Error).message}`,
        () => runtime.close(),
      );
    }
  }
  if (config.memoryReleaseIdleSeconds > 0)
    startIdleMemoryRelease({ idleMs: config.memoryReleaseIdleSeconds * 1000, log });
  // `open` first: at a terminal the line reads "tollway started — open http://localhost:3000/setup  port=…".
  const open = startUrl({ port: config.port, host, setUp: runtime.ctx.setup.isDone() });
  log.info({ open, port: config.port, database: runtime.ctx.db.dialect }, 'tollway started');
  stopOnSignals({ app, runtime, log, output: logOutputs, graceMs });
}

void main();
