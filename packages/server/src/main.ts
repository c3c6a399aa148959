import { buildApp } from './app.js';
import { createRuntime } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';

/** Starts Tollway: config → database and migrations → HTTP server; stops gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tollway: invalid configuration: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  let runtime;
  try {
    runtime = await createRuntime(config, log);
  } catch (err) {
    const msg = err instanceof ConfigError ? err.message : `database start-up failed: ${(err as Error).message}`;
    console.error(`tollway: ${msg}`);
    process.exit(78);
  }
  const { app } = await buildApp(runtime.ctx);
  try {
    await app.listen({ port: config.port, host: process.env.HOST || '0.0.0.0' });
  } catch (err) {
    console.error(`tollway: PORT: cannot listen on ${config.port}: ${(err as Error).message}`);
    await runtime.close();
    process.exit(78);
  }
  log.info({ port: config.port, database: runtime.ctx.db.dialect }, 'tollway started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      await app.close();
      await runtime.close();
      log.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
