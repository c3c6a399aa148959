import crypto from 'node:crypto';
import { ErrorCode } from '@tollway/shared';
import { refused } from '../../lib/errors.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { perContext } from '../../per-context.js';
import { nowSeconds } from '../../lib/time.js';
import {
  readCookie,
  SESSION_COOKIE,
  SESSION_MAX_AGE_SECONDS,
  sessionCookie,
  sessionKey,
  type SealedSession,
} from './session.js';
import { SessionStore } from './session-store.js';
import type { SessionOrigin } from './session-origin.js';

/** Random bytes of a session id (43 base64url characters). */
const SESSION_ID_BYTES = 32;
const MAX_USER_AGENT = 255;
const MAX_IP = 64;

export const sessionStoreOf = perContext((ctx: AppContext) => new SessionStore(ctx.db));

const isHttps = (req: FastifyRequest): boolean => req.protocol === 'https';

/** The cookie's session when it is intact and unexpired (its row is checked separately). */
export function sealedSessionOf(deps: Pick<AppContext, 'sessions'>, req: FastifyRequest): SealedSession | undefined {
  return deps.sessions.open(readCookie(req.headers.cookie, SESSION_COOKIE));
}

/** Creates a session row for `userId`, signed in by `origin`, and returns the sealed cookie value that carries it. */
export async function openSession(
  ctx: AppContext,
  userId: number,
  origin: SessionOrigin,
  client: { ip?: string; userAgent?: string } = {},
): Promise<string> {
  const sid = crypto.randomBytes(SESSION_ID_BYTES).toString('base64url');
  const now = nowSeconds();
  await sessionStoreOf(ctx).create({
    id: sessionKey(sid),
    user_id: userId,
    created_at: now,
    expires_at: now + SESSION_MAX_AGE_SECONDS,
    ip: (client.ip ?? '').slice(0, MAX_IP),
    user_agent: (client.userAgent ?? '').slice(0, MAX_USER_AGENT),
    origin,
  });
  return ctx.sessions.seal(userId, sid, SESSION_MAX_AGE_SECONDS, now * 1000);
}

/**
 * Signs `user` in: a new session row and the session cookie on `reply`. The one way every sign-in (password,
 * setup, passkey, directory, third-party, second factor) issues a session; the caller has checked the credentials
 * and status, and names how the user signed in (`origin`), so that losing that identity ends the session.
 */
export async function startSession(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  user: { id: number },
  origin: SessionOrigin,
): Promise<void> {
  await refuseWalletAccount(ctx, user.id);
  const ua = req.headers['user-agent'];
  const value = await openSession(ctx, user.id, origin, { ip: req.ip, userAgent: typeof ua === 'string' ? ua : '' });
  reply.header('set-cookie', sessionCookie(value, SESSION_MAX_AGE_SECONDS, isHttps(req)));
}

/**
 * An organization's shared wallet is an account nobody signs in to (users.org_id set): whatever a sign-in method
 * found (an administrator who gave it a password, an identity bound to it), no session opens on it.
 */
async function refuseWalletAccount(ctx: Pick<AppContext, 'db'>, userId: number): Promise<void> {
  const row = await ctx.db.kysely.selectFrom('users').select('org_id').where('id', '=', userId).executeTakeFirst();
  if (row && Number(row.org_id) > 0) throw refused(WALLET_ACCOUNT_MSG, ErrorCode.OrgWalletAccount);
}

export const WALLET_ACCOUNT_MSG = "this is an organization's wallet account: it cannot sign in";

/** Logout: ends the caller's session (its row is deleted, so the cookie stops working everywhere) and clears the cookie. */
export async function endSession(
  deps: Pick<AppContext, 'sessions' | 'users'>,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const sealed = sealedSessionOf(deps, req);
  if (sealed) await deps.users.credentials.apply('logout', sealed.uid, sessionKey(sealed.sid));
  reply.header('set-cookie', sessionCookie('', 0, isHttps(req)));
}

/** The row key of the caller's session, if the request carries a session cookie. */
export function currentSessionKey(deps: Pick<AppContext, 'sessions'>, req: FastifyRequest): string | undefined {
  const sealed = sealedSessionOf(deps, req);
  return sealed ? sessionKey(sealed.sid) : undefined;
}
