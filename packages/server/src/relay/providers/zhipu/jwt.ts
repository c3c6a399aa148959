import crypto from 'node:crypto';
import { CredentialCache } from '../credential-cache.js';
import { UpstreamPrepareError } from '../prepare.js';

/** How long a signed token is valid, and how long before that a new one is signed. */
const TOKEN_LIFETIME_MS = 60 * 60_000;
const REFRESH_MARGIN_MS = 5 * 60_000;
/** At most this many keys' tokens are kept. */
const MAX_CACHED = 512;

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/**
 * Zhipu's API token: a JWT (HS256, header `sign_type: SIGN`) whose claims are the key's id (`api_key`), `exp` and
 * `timestamp` in milliseconds, signed with the key's secret (keys are written `id.secret`).
 */
export function signChatGLMToken(key: string, nowMs: number, lifetimeMs = TOKEN_LIFETIME_MS): string {
  const dot = key.indexOf('.');
  const id = key.slice(0, dot).trim();
  const secret = key.slice(dot + 1).trim();
  if (dot <= 0 || !id || !secret || secret.includes('.'))
    throw new UpstreamPrepareError('Zhipu ChatGLM keys are written id.secret', 401);
  const head = b64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN' }));
  const claims = b64url(JSON.stringify({ api_key: id, exp: nowMs + lifetimeMs, timestamp: nowMs }));
  const signature = crypto.createHmac('sha256', secret).update(`${head}.${claims}`).digest('base64url');
  return `${head}.${claims}.${signature}`;
}

const tokens = new CredentialCache<string>(MAX_CACHED, REFRESH_MARGIN_MS);

/** The key's token, signed anew shortly before the cached one expires. */
export function chatGLMToken(key: string, now = Date.now()): string {
  const hit = tokens.fresh(key);
  if (hit) return hit;
  return tokens.put(key, { value: signChatGLMToken(key, now), expiresAt: now + TOKEN_LIFETIME_MS });
}
