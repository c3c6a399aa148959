// OpenID Connect Back-Channel Logout 1.0 for root-defined providers: the provider posts a signed logout token when a
// user's sessions end there (signed out, disabled, removed); the sessions that provider opened here end with them.
import { ErrorCode } from '@tollway/shared';
import type { JWTPayload } from 'jose';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { ApiError, coded } from '../../lib/errors.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { jwksUrlOf } from './code-flow.js';
import { MAX_JWT_CHARS, verifyJwt } from './jwt.js';
import { CustomOAuthStore } from './store.js';

/** The event member a logout token must carry (the spec's "events" claim). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token issued longer ago than this is refused (a captured one cannot sign a user out later). */
export const LOGOUT_TOKEN_MAX_AGE_S = 300;
/** Logout token ids remembered against replay, per node, for LOGOUT_TOKEN_MAX_AGE_S. */
const MAX_SEEN_TOKEN_IDS = 10_000;
/** Exported for the bounded-state sweep. */
export const seenTokenIds = new BoundedMap<string, true>({
  maxEntries: MAX_SEEN_TOKEN_IDS,
  ttlMs: LOGOUT_TOKEN_MAX_AGE_S * 1000,
});

const HTTP_OK = 200;
const HTTP_BAD_REQUEST = 400;

const logoutRefusal = (reason: string): ApiError =>
  coded(ErrorCode.CustomOAuthLogoutTokenInvalid, `the logout token is refused: ${reason}`, { reason });

/** The spec's checks beyond the signature, iss and aud (verifyJwt): events, sub, no nonce, iat, jti. */
function checkLogoutClaims(claims: JWTPayload, providerId: number, nowS: number): string {
  const events = claims.events as Record<string, unknown> | undefined;
  const event = events && typeof events === 'object' ? events[BACKCHANNEL_LOGOUT_EVENT] : undefined;
  if (!event || typeof event !== 'object') throw logoutRefusal('it carries no back-channel logout event');
  if ('nonce' in claims) throw logoutRefusal('it carries a nonce (it is not a logout token)');
  if (typeof claims.iat !== 'number' || claims.iat < nowS - LOGOUT_TOKEN_MAX_AGE_S)
    throw logoutRefusal('it was issued too long ago');
  if (typeof claims.jti !== 'string' || !claims.jti) throw logoutRefusal('it has no jti');
  const seenKey = `${providerId}:${claims.jti}`;
  if (seenTokenIds.get(seenKey)) throw logoutRefusal('it was already used');
  seenTokenIds.set(seenKey, true);
  // Sessions here are not tied to the provider's session ids: the token must name the user.
  if (typeof claims.sub !== 'string' || !claims.sub) throw logoutRefusal('it names no user (sub)');
  return claims.sub;
}

/**
 * Verifies a logout token for provider `slug` and ends the sessions it opened for the user the token names
 * (identity_revoked). Returns how many sessions ended (0 for a user who has none, or no account here).
 */
export async function backchannelLogout(ctx: AppContext, slug: string, token: string): Promise<number> {
  const store = new CustomOAuthStore(ctx.db);
  const p = slug ? await store.findBySlug(slug.toLowerCase()) : undefined;
  if (!p || Number(p.enabled) !== 1) throw logoutRefusal('there is no such enabled provider');
  const jwksUrl = await jwksUrlOf(p);
  const claims = await verifyJwt(token, {
    jwksUrl,
    publicKey: p.public_key ?? '',
    issuer: p.issuer || undefined,
    audience: p.client_id || undefined,
    code: ErrorCode.CustomOAuthLogoutTokenInvalid,
  });
  const sub = checkLogoutClaims(claims, p.id, Math.floor(Date.now() / 1000));
  const holder = await store.findHolder(p.id, sub);
  if (!holder) return 0;
  return ctx.users.credentials.endIdentity('identity_revoked', SessionOrigins.customOAuth(p.id), holder.id);
}

const logoutBody = z.object({ logout_token: z.string().max(MAX_JWT_CHARS).optional().default('') });

/** The back-channel logout endpoint a root gives the provider (its "backchannel_logout_uri"). */
export function customOAuthBackchannelRoutes(r: Router): void {
  r.add({
    method: 'POST',
    url: '/api/oauth/custom/:provider/backchannel-logout',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "OpenID Connect back-channel logout for a root-defined provider: a form with logout_token (signed by the provider's keys, iss, aud = client id, the logout event, sub, iat within 5 minutes, a fresh jti) ends the sessions that provider opened for that user; 200, or 400 {error, error_description}",
    tags: ['auth'],
    params: z.object({ provider: z.string().max(64) }),
    body: logoutBody,
    raw: true,
    handler: async ({ ctx, params, body, reply }) => {
      reply.header('cache-control', 'no-store');
      try {
        const ended = await backchannelLogout(ctx, params.provider, body.logout_token);
        ctx.log.info({ provider: params.provider, ended }, 'back-channel logout');
        return reply.status(HTTP_OK).send();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return reply.status(HTTP_BAD_REQUEST).send({ error: 'invalid_request', error_description: err.message });
      }
    },
  });
}
