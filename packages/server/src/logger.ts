import pino, { type Logger } from 'pino';

/** Structured JSON logs; credentials and passwords are redacted wherever they could appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]', '*.password', '*.original_password', 'password'],
      censor: '[redacted]',
    },
  });
}
