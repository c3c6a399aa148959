// Run as its own process (node --import tsx): a server whose stop blocks its main thread for good, as a stuck
// synchronous call would. Argument: the grace period in ms. Prints "ready" once the signals are handled.
import { stopOnSignals } from '../../src/http/shutdown.js';
import { stdoutLog } from '../../src/log-output.js';
import { createLogger } from '../../src/logger.js';

const KEEP_ALIVE_MS = 60_000;

const blockForever = async () => {
  for (;;);
};
stopOnSignals({
  app: { close: blockForever, server: { closeAllConnections: () => undefined } },
  runtime: { close: async () => undefined },
  log: createLogger('info'),
  output: stdoutLog(),
  graceMs: Number(process.argv[2]),
});
setInterval(() => undefined, KEEP_ALIVE_MS);
stdoutLog().write('ready\n');
