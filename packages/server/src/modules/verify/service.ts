import { ErrorCode } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError, forbidden, coded } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { identifyBySession } from '../auth/guard.js';
import { twoFactorOf, type TwoFactorService } from '../twofa/service.js';
import type { UsersStore } from '../users/store.js';
import type { AuthUser } from '../../core/auth-user.js';
import { verifyPassword } from '../users/password.js';
import { MemoryVerifiedMarks, RedisVerifiedMarks, type VerifiedMarks } from './marks.js';
import { takePasskeyReady } from '../passkeys/challenges.js';
import { PasskeyStore } from '../passkeys/store.js';

/** How long a secure verification lasts (seconds). */
export const SECURE_VERIFICATION_TTL = 300;
export const VERIFICATION_REQUIRED =
  'secure verification required: verify with your two-factor code, passkey (or password) first';
const SESSION_ONLY = 'secure verification needs a signed-in browser session, not an access token';
const TWO_FACTOR_FIRST =
  'two-factor authentication is on for this account: verify with a code from the authenticator or a backup code';
const WRONG_PASSWORD = 'the password is wrong';

export interface VerifyInput {
  method: '2fa' | 'password' | 'passkey';
  code?: string;
  password?: string;
}

/** What step-up verification needs: the request's signed-in session, the two-factor rules, the users. */
export interface SecureVerificationDeps {
  /** The caller signed in by a live session cookie (not by an access token), with the session's row key. */
  sessionOf(req: FastifyRequest): Promise<{ user: AuthUser; key: string } | undefined>;
  twoFactor: TwoFactorService;
  usersStore: UsersStore;
  hasPasskey(userId: number): Promise<boolean>;
  /** Takes the session's passkey mark (modules/passkeys/challenges.ts): true once after a passed assertion. */
  takePasskeyReady(sessionKey: string, userId: number): Promise<boolean>;
}

/**
 * Step-up verification of a signed-in session before a sensitive read (a channel's key): a current two-factor
 * code or backup code, or, for an account without two-factor sign-in, the password. The mark belongs to the
 * session (not the user) and lasts five minutes.
 */
export class SecureVerification {
  constructor(
    private readonly deps: SecureVerificationDeps,
    private readonly marks: VerifiedMarks,
  ) {}

  private async session(
    req: FastifyRequest,
    refuse: (message: string, code: ErrorCode) => ApiError,
  ): Promise<{ userId: number; key: string }> {
    const s = await this.deps.sessionOf(req);
    if (!s) throw refuse(SESSION_ONLY, ErrorCode.VerifySessionOnly);
    return { userId: s.user.id, key: s.key };
  }

  async verify(req: FastifyRequest, input: VerifyInput): Promise<{ verified: true; expires_at: number }> {
    const { userId, key } = await this.session(req, (m, code) => coded(code, m));
    const twoFactor = this.deps.twoFactor;
    const has2fa = await twoFactor.store.isEnabled(userId);
    if (input.method === 'passkey') {
      // Only a passkey assertion of this session in the last minute (POST /api/user/passkey/verify/finish) counts.
      if (!(await this.deps.hasPasskey(userId)))
        throw coded(ErrorCode.PasskeyNotRegistered, 'this account has no passkey; verify another way');
      if (!(await this.deps.takePasskeyReady(key, userId)))
        throw coded(ErrorCode.PasskeyNotVerified, 'complete the passkey verification first');
    } else if (input.method === '2fa') {
      if (!has2fa)
        throw coded(
          ErrorCode.VerifyTwoFactorNotEnabled,
          'two-factor authentication is not enabled for this account; verify with the password',
        );
      if (!input.code?.trim())
        throw coded(ErrorCode.VerifyCodeRequired, 'enter the verification code or a backup code');
      await twoFactor.verifySignIn(userId, input.code, req.ip);
    } else {
      if (has2fa) throw coded(ErrorCode.VerifyTwoFactorFirst, TWO_FACTOR_FIRST);
      await this.checkPassword(userId, input.password ?? '', req.ip);
    }
    await this.marks.mark(key, SECURE_VERIFICATION_TTL);
    return { verified: true, expires_at: nowSeconds() + SECURE_VERIFICATION_TTL };
  }

  /** Wrong passwords count against the same per-user and per-address limits as wrong codes. */
  private async checkPassword(userId: number, password: string, ip: string): Promise<void> {
    if (password === '') throw coded(ErrorCode.PasswordRequired, 'enter your password');
    const attempts = this.deps.twoFactor.attempts;
    await attempts.assertOpen(userId, ip);
    const user = await this.deps.usersStore.findById(userId);
    if (user?.password && (await verifyPassword(password, user.password))) return;
    await attempts.fail(userId, ip);
    throw coded(ErrorCode.PasswordWrong, WRONG_PASSWORD);
  }

  /** Refuses (403) unless the caller's session passed a verification within the last five minutes. */
  async assertVerified(req: FastifyRequest): Promise<void> {
    const { key } = await this.session(req, forbidden);
    if (!(await this.marks.has(key))) throw forbidden(VERIFICATION_REQUIRED, ErrorCode.VerificationRequired);
  }
}

export const secureVerificationOf = perContext(
  (ctx: AppContext) =>
    new SecureVerification(
      {
        sessionOf: (req) => identifyBySession(req, ctx),
        twoFactor: twoFactorOf(ctx),
        usersStore: ctx.usersStore,
        hasPasskey: async (userId) => (await new PasskeyStore(ctx.db).findByUser(userId)) !== undefined,
        takePasskeyReady: (sessionKey, userId) => takePasskeyReady(ctx, sessionKey, userId),
      },
      ctx.redis ? new RedisVerifiedMarks(ctx.redis, ctx.config.redisKeyPrefix) : new MemoryVerifiedMarks(),
    ),
);
