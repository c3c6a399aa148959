import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * SESSION_SECRET when set; otherwise a random secret kept in the data folder so sessions survive restarts.
 * A generated secret only works for one node, which the warning says.
 */
export function resolveSessionSecret(configured: string | undefined, dataDir: string, log: Logger): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'session_secret');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) {
      log.warn(
        { file },
        'SESSION_SECRET is not set; using the secret stored in the data folder. Multi-node deployments need one shared SESSION_SECRET.',
      );
      return stored;
    }
  }
  const secret = crypto.randomBytes(32).toString('hex');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  log.warn(
    { file },
    'SESSION_SECRET is not set; generated a random one and stored it in the data folder. Multi-node deployments need one shared SESSION_SECRET.',
  );
  return secret;
}

/** Random alphanumeric string (aff codes, access tokens, suffixes). */
export function randomString(
  length: number,
  alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
): string {
  const bytes = crypto.randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}
