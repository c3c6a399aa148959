import pino, { type DestinationStream, type Logger } from 'pino';
import { stdoutDestination } from './log-output.js';

/** Where a credential or secret may appear in a log object; each is replaced by the censor text. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  '*.original_password',
  // Secrets stored at rest (sealed with CRYPTO_SECRET) and the configuration that unlocks them.
  '*.webhook_secret',
  '*.access_token',
  '*.client_secret',
  '*.secret',
  '*.cryptoSecret',
  '*.sessionSecret',
  'channel.key',
  'channel.keys',
  'row.key',
];

/**
 * Structured JSON logs; credentials and passwords are redacted wherever they could appear. By default to stdout
 * through a destination that never blocks nor throws (pino's own retries a broken pipe forever at exit), as
 * readable lines when stdout is a terminal (stdoutDestination).
 */
export function createLogger(level: string, destination: DestinationStream = stdoutDestination()): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
