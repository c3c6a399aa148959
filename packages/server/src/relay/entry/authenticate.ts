import type { RelayRequest } from './request.js';
import { UserStatus } from '@tollway/shared';
import { nowSeconds } from '../../lib/time.js';
import type { TokenAuth, TokenAuthCache } from './auth-cache.js';
import { relayErrors } from '../pipeline/errors.js';

/** The caller of a relay call and the group it is billed in. */
export interface Identified {
  auth: TokenAuth;
  group: string;
}

/** The API key from `Authorization: Bearer sk-…`, `x-api-key` or `x-goog-api-key`, without the sk- prefix. */
export function apiKeyOf(req: RelayRequest): string | undefined {
  const h = req.headers;
  let raw = h.authorization;
  if (raw) raw = raw.startsWith('Bearer ') || raw.startsWith('bearer ') ? raw.slice(7) : raw;
  raw ??=
    (h['x-api-key'] as string | undefined) ??
    (h['x-goog-api-key'] as string | undefined) ??
    (req.query as { key?: string } | undefined)?.key;
  if (!raw) return undefined;
  raw = raw.trim();
  return raw.startsWith('sk-') ? raw.slice(3) : raw;
}

/**
 * Stage 1 — authenticate: token from memory (database only on first sight), then status, expiry, IP
 * allow-list and user status. Returns the caller and the group the call is billed in.
 */
export async function authenticate(req: RelayRequest, cache: TokenAuthCache): Promise<Identified> {
  const key = apiKeyOf(req);
  if (!key) throw relayErrors.noKey();
  return authenticateKey(key, req.ip, cache);
}

/** The checks of `authenticate` for a known key (the playground's token, found from the console session). */
export async function authenticateKey(key: string, ip: string, cache: TokenAuthCache): Promise<Identified> {
  if (key.length > 128) throw relayErrors.badKey();
  const auth = await cache.get(key);
  if (!auth) throw relayErrors.badKey();
  if (auth.userStatus !== UserStatus.Enabled) throw relayErrors.userBanned();
  if (auth.status === 3 || (auth.expiredTime !== -1 && auth.expiredTime < nowSeconds()))
    throw relayErrors.tokenExpired();
  if (auth.status === 4) throw relayErrors.tokenExhausted();
  if (auth.status !== 1) throw relayErrors.tokenDisabled();
  if (!auth.allowIps.allows(ip)) throw relayErrors.ipDenied(ip);
  // A token's own group holds only while the user may still use it (withdrawn option, user moved).
  if (auth.group && !cache.groupUsable(auth.userGroup, auth.group)) throw relayErrors.groupWithdrawn(auth.group);
  return { auth, group: auth.group || auth.userGroup };
}
