import { UserStatus, type TwoFactorChallenge, ErrorCode } from '@tollway/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { nowSeconds } from '../../lib/time.js';
import { readCookie } from '../auth/session.js';
import { startSession } from '../auth/sessions.js';
import type { SessionOrigin } from '../auth/session-origin.js';
import type { UserRow } from '../users/store.js';
import { MemoryPendingLogins, RedisPendingLogins } from './pending.js';
import { twoFactorOf } from './service.js';

/** How long the second step of a sign-in may take. */
export const PENDING_LOGIN_SECONDS = 300;
export const PENDING_COOKIE = 'twofa_pending';
const EXPIRED = 'the sign-in has expired, please log in again';

export const pendingLoginsOf = perContext((ctx: AppContext) =>
  ctx.redis ? new RedisPendingLogins(ctx.redis, ctx.config.redisKeyPrefix) : new MemoryPendingLogins(),
);

function pendingCookie(value: string, maxAge: number, secure: boolean): string {
  return `${PENDING_COOKIE}=${value}; Path=/api/user/login; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/**
 * For a user with two-factor sign-in on, the first step ends here: no session, only a pending sign-in (token in
 * the answer and in an HttpOnly cookie) that POST /api/user/login/2fa completes. Undefined for everyone else.
 */
export async function twoFactorChallengeFor(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  user: { id: number },
  origin: SessionOrigin,
): Promise<TwoFactorChallenge | undefined> {
  if (!(await twoFactorOf(ctx).store.isEnabled(user.id))) return undefined;
  const token = await pendingLoginsOf(ctx).create({ userId: user.id, origin }, PENDING_LOGIN_SECONDS * 1000);
  reply.header('set-cookie', pendingCookie(token, PENDING_LOGIN_SECONDS, req.protocol === 'https'));
  return { require_2fa: true, flow_token: token, expires_at: nowSeconds() + PENDING_LOGIN_SECONDS };
}

/** The second step: a valid code for the pending sign-in's user takes the pending sign-in and opens a session. */
export async function completeTwoFactorLogin(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  code: string,
  flowToken: string | undefined,
): Promise<UserRow> {
  const token = flowToken || readCookie(req.headers.cookie, PENDING_COOKIE) || '';
  const pending = pendingLoginsOf(ctx);
  const login = await pending.peek(token);
  if (login === undefined) throw coded(ErrorCode.SignInExpired, EXPIRED);
  const user = await ctx.usersStore.findById(login.userId);
  if (!user) throw coded(ErrorCode.SignInExpired, EXPIRED);
  if (user.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
  await twoFactorOf(ctx).verifySignIn(user.id, code, req.ip);
  if (!(await pending.take(token))) throw coded(ErrorCode.SignInExpired, EXPIRED);
  await startSession(ctx, req, reply, user, login.origin);
  reply.header('set-cookie', pendingCookie('', 0, req.protocol === 'https'));
  return user;
}
