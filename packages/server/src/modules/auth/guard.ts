import type { FastifyRequest } from 'fastify';
import { accessLevelMinRole, UserStatus, type AccessLevel, ErrorCode } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { forbidden, unauthorized } from '../../lib/errors.js';
import { assertTwoFactorWhereRequired } from '../twofa/required.js';
import { nowSeconds } from '../../lib/time.js';
import type { AuthUser } from '../../core/auth-user.js';
import { sessionKey } from './session.js';
import { sealedSessionOf, sessionStoreOf } from './sessions.js';

/** The access token may come as `Authorization: <token>` or `Authorization: Bearer <token>`. */
function accessTokenOf(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const token = h.startsWith('Bearer ') ? h.slice(7).trim() : h.trim();
  return token.length >= 16 && token.length <= 64 ? token : undefined;
}

/**
 * Finds the caller from the session cookie (whose session row must still exist: one query joined with the user)
 * or the access token; undefined when neither identifies a user.
 */
export async function identify(req: FastifyRequest, ctx: AppContext): Promise<AuthUser | undefined> {
  const sealed = sealedSessionOf(ctx, req);
  const row =
    (sealed && (await sessionStoreOf(ctx).userOf(sessionKey(sealed.sid), sealed.uid, nowSeconds()))) ||
    (await lookupToken(req, ctx));
  if (!row) return undefined;
  return { id: row.id, username: row.username, role: row.role, status: row.status, group: row.group };
}

/** The caller signed in by a live session cookie (not by an access token), with the session's row key. */
export async function identifyBySession(
  req: FastifyRequest,
  ctx: AppContext,
): Promise<{ user: AuthUser; key: string } | undefined> {
  const sealed = sealedSessionOf(ctx, req);
  if (!sealed) return undefined;
  const key = sessionKey(sealed.sid);
  const row = await sessionStoreOf(ctx).userOf(key, sealed.uid, nowSeconds());
  return row
    ? { user: { id: row.id, username: row.username, role: row.role, status: row.status, group: row.group }, key }
    : undefined;
}

async function lookupToken(req: FastifyRequest, ctx: AppContext) {
  const token = accessTokenOf(req);
  return token ? ctx.usersStore.findByAccessToken(token) : undefined;
}

/**
 * The caller of a route that needs one, from the request's headers alone (no body is read): 401 without a valid
 * session/access token, when New-Api-User does not match the user, or for a banned user.
 */
export async function authenticateCaller(req: FastifyRequest, ctx: AppContext): Promise<AuthUser> {
  const user = await identify(req, ctx);
  if (!user) throw unauthorized('no permission: not logged in and no access token provided');
  const header = req.headers['new-api-user'];
  if (header === undefined || header === '')
    throw unauthorized('no permission: the New-Api-User header is missing', ErrorCode.UserHeaderMissing);
  if (String(header) !== String(user.id))
    throw unauthorized('no permission: New-Api-User does not match the logged-in user', ErrorCode.UserHeaderMismatch);
  if (user.status !== UserStatus.Enabled) throw unauthorized('user banned', ErrorCode.UserBanned);
  return user;
}

/** 403 below the level's role, or for an administrator who must first set up 2FA. */
export async function requireLevel(
  req: FastifyRequest,
  ctx: AppContext,
  user: AuthUser,
  level: AccessLevel,
): Promise<void> {
  if (user.role < accessLevelMinRole[level]) throw forbidden();
  await assertTwoFactorWhereRequired(req, ctx, user);
}

/** Enforces a route's level: authenticateCaller's 401s, then requireLevel's 403s. */
export async function authorize(
  req: FastifyRequest,
  ctx: AppContext,
  level: AccessLevel,
): Promise<AuthUser | undefined> {
  if (level === 'public') return undefined;
  const user = await authenticateCaller(req, ctx);
  await requireLevel(req, ctx, user, level);
  return user;
}
