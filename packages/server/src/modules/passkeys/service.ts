import { ErrorCode, UserStatus, type PasskeyCredentialBody, type PasskeyStatus } from '@tollway/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { coded, refused } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { currentSessionKey, startSession } from '../auth/sessions.js';
import { PENDING_COOKIE, pendingLoginsOf } from '../twofa/login.js';
import { twoFactorOf } from '../twofa/service.js';
import { toPublicUser } from '../users/public.js';
import type { UserRow } from '../users/store.js';
import { secureVerificationOf } from '../verify/service.js';
import {
  VERIFICATION_FAILED,
  authenticationOptions,
  registrationOptions,
  rememberCeremony,
  storedCredentialId,
  takeCeremony,
  verifyAssertion,
  verifyRegistration,
  type Ceremony,
} from './ceremony.js';
import { markPasskeyReady } from './challenges.js';
import { relyingParty } from './settings.js';
import { PasskeyStore, type PasskeyRow } from './store.js';

export const NOT_REGISTERED = 'this account has no passkey';
const UNKNOWN_CREDENTIAL =
  'this passkey is not registered here: sign in another way and register it in personal settings';
const IN_USE = 'this passkey is already registered to another account';
const SESSION_CHANGED = 'the passkey request belongs to another session, please try again';
const EXPIRED_SIGN_IN = 'the sign-in has expired, please log in again';

export const passkeyStoreOf = perContext((ctx: AppContext) => new PasskeyStore(ctx.db));

const isoOrNull = (seconds: number): string | null => (seconds > 0 ? new Date(seconds * 1000).toISOString() : null);

/** Passkeys (WebAuthn) as new-api offers them: one per user, to sign in, to complete a 2FA step, to verify. */
export class PasskeyService {
  constructor(private readonly ctx: AppContext) {}

  private get store(): PasskeyStore {
    return passkeyStoreOf(this.ctx);
  }

  private log(req: FastifyRequest, what: string): (detail: string) => void {
    return (detail) => req.log.info({ passkey: what, detail }, 'passkey refused');
  }

  private sessionKey(req: FastifyRequest): string {
    return currentSessionKey(this.ctx, req) ?? '';
  }

  async status(userId: number): Promise<PasskeyStatus> {
    const row = await this.store.findByUser(userId);
    if (!row) return { enabled: false };
    return {
      enabled: true,
      last_used_at: isoOrNull(Number(row.last_used_at)),
      created_at: new Date(Number(row.created_at) * 1000).toISOString(),
      backup_eligible: row.backup_eligible === 1,
      backup_state: row.backup_state === 1,
    };
  }

  /** With two-factor sign-in on, registering (like removing) needs a secure verification first, as in new-api. */
  async registerBegin(req: FastifyRequest, user: AuthUser) {
    const rp = relyingParty(this.ctx.options, req);
    if (await twoFactorOf(this.ctx).store.isEnabled(user.id)) await secureVerificationOf(this.ctx).assertVerified(req);
    const row = await this.ctx.usersStore.findById(user.id);
    if (!row) throw coded(ErrorCode.UserNotFound, 'user does not exist');
    const options = await registrationOptions(rp, row, await this.store.findByUser(user.id));
    await rememberCeremony(this.ctx, options.challenge, {
      kind: 'register',
      userId: user.id,
      sessionKey: this.sessionKey(req),
    });
    return { options: { publicKey: options } };
  }

  async registerFinish(req: FastifyRequest, user: AuthUser, body: PasskeyCredentialBody): Promise<void> {
    const rp = relyingParty(this.ctx.options, req);
    const { challenge, ceremony } = await takeCeremony(this.ctx, body, 'register');
    this.assertSameCaller(req, user, ceremony);
    const fields = await verifyRegistration(rp, body, challenge, this.log(req, 'register'));
    const holder = await this.store.findByCredentialId(fields.credential_id);
    if (holder && holder.user_id !== user.id) throw coded(ErrorCode.PasskeyInUse, IN_USE);
    const previous = await this.store.findByUser(user.id);
    const now = nowSeconds();
    await this.store.replace({
      ...fields,
      user_id: user.id,
      clone_warning: 0,
      last_used_at: 0,
      created_at: now,
      updated_at: now,
    });
    // The passkey it replaces no longer signs anyone in: the sessions it opened end.
    if (previous) await this.endSessionsOf(previous);
  }

  private assertSameCaller(req: FastifyRequest, user: AuthUser, ceremony: Ceremony): void {
    if (ceremony.userId !== user.id || ceremony.sessionKey !== this.sessionKey(req))
      throw coded(ErrorCode.PasskeyChallengeExpired, SESSION_CHANGED);
  }

  /**
   * Begins a sign-in: any passkey of this site (usernameless), the named user's, or (flow_token) the passkey of the
   * user whose password sign-in waits for its second factor. An unknown user name, or one without a passkey, gets
   * the usernameless options (the answer does not tell those two apart).
   */
  async loginBegin(req: FastifyRequest, input: { username?: string; flow_token?: string } | undefined) {
    const rp = relyingParty(this.ctx.options, req);
    let allow: PasskeyRow | undefined;
    let ceremony: Ceremony = { kind: 'login', userId: 0 };
    if (input?.flow_token) {
      const pending = await pendingLoginsOf(this.ctx).peek(input.flow_token);
      if (!pending) throw coded(ErrorCode.SignInExpired, EXPIRED_SIGN_IN);
      allow = await this.store.findByUser(pending.userId);
      if (!allow) throw coded(ErrorCode.PasskeyNotRegistered, NOT_REGISTERED);
      ceremony = { kind: 'login', userId: pending.userId, flowToken: input.flow_token };
    } else if (input?.username) {
      const named = await this.ctx.usersStore.findByUsername(input.username);
      allow = named ? await this.store.findByUser(named.id) : undefined;
    }
    const options = await authenticationOptions(rp, allow);
    await rememberCeremony(this.ctx, options.challenge, ceremony);
    return { options: { publicKey: options } };
  }

  /** Finishes a sign-in: a session for the passkey's user (enabled, not deleted), or the pending sign-in completed. */
  async loginFinish(req: FastifyRequest, reply: FastifyReply, body: PasskeyCredentialBody) {
    relyingParty(this.ctx.options, req);
    const { challenge, ceremony } = await takeCeremony(this.ctx, body, 'login');
    const row = await this.store.findByCredentialId(storedCredentialId(body));
    if (!row) throw coded(ErrorCode.PasskeyUnknownCredential, UNKNOWN_CREDENTIAL);
    if (ceremony.userId !== 0 && row.user_id !== ceremony.userId)
      throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
    const user = await this.ctx.usersStore.findById(row.user_id);
    if (!user) throw coded(ErrorCode.PasskeyUnknownCredential, UNKNOWN_CREDENTIAL);
    const handle = body.response.userHandle;
    if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== String(user.id))
      throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
    await this.assertion(req, 'login', body, challenge, row);
    // Only the passkey's holder learns that the account is disabled: the signature is checked first.
    if (user.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
    if (ceremony.flowToken) await this.completePending(req, reply, user, ceremony.flowToken);
    else await startSession(this.ctx, req, reply, user, SessionOrigins.passkey(row.id));
    return toPublicUser(user);
  }

  /** The passkey as the second factor of a password sign-in: the pending sign-in is taken, its origin kept. */
  private async completePending(req: FastifyRequest, reply: FastifyReply, user: UserRow, token: string) {
    const pending = pendingLoginsOf(this.ctx);
    const login = await pending.peek(token);
    if (!login || login.userId !== user.id || !(await pending.take(token)))
      throw coded(ErrorCode.SignInExpired, EXPIRED_SIGN_IN);
    await startSession(this.ctx, req, reply, user, login.origin);
    const secure = req.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'set-cookie',
      `${PENDING_COOKIE}=; Path=/api/user/login; Max-Age=0; HttpOnly; SameSite=Strict${secure}`,
    );
  }

  private async assertion(
    req: FastifyRequest,
    what: string,
    body: PasskeyCredentialBody,
    challenge: string,
    row: PasskeyRow,
  ): Promise<void> {
    const rp = relyingParty(this.ctx.options, req);
    const { newCounter } = await verifyAssertion(rp, body, challenge, row, this.log(req, what));
    // Of two assertions racing on one counter value only one is recorded; the other is refused.
    if (!(await this.store.recordUse(row.id, Number(row.sign_count), newCounter, nowSeconds())))
      throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
  }

  async verifyBegin(req: FastifyRequest, user: AuthUser) {
    const rp = relyingParty(this.ctx.options, req);
    const row = await this.store.findByUser(user.id);
    if (!row) throw coded(ErrorCode.PasskeyNotRegistered, NOT_REGISTERED);
    const options = await authenticationOptions(rp, row);
    await rememberCeremony(this.ctx, options.challenge, {
      kind: 'verify',
      userId: user.id,
      sessionKey: this.sessionKey(req),
    });
    return { options: { publicKey: options } };
  }

  /** A passed assertion marks the session for a minute; POST /api/verify {method:"passkey"} turns it into a verification. */
  async verifyFinish(req: FastifyRequest, user: AuthUser, body: PasskeyCredentialBody): Promise<void> {
    relyingParty(this.ctx.options, req);
    const { challenge, ceremony } = await takeCeremony(this.ctx, body, 'verify');
    this.assertSameCaller(req, user, ceremony);
    const row = await this.store.findByUser(user.id);
    if (!row) throw coded(ErrorCode.PasskeyNotRegistered, NOT_REGISTERED);
    if (row.credential_id !== storedCredentialId(body))
      throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
    await this.assertion(req, 'verify', body, challenge, row);
    await markPasskeyReady(this.ctx, ceremony.sessionKey ?? '', user.id);
  }

  /** Removing needs a secure verification first (new-api's rule); the sessions the passkey opened end. */
  async remove(req: FastifyRequest, user: AuthUser): Promise<void> {
    await secureVerificationOf(this.ctx).assertVerified(req);
    const row = await this.store.findByUser(user.id);
    if (!row || !(await this.store.removeByUser(user.id))) throw coded(ErrorCode.PasskeyNotRegistered, NOT_REGISTERED);
    await this.endSessionsOf(row);
  }

  /** An administrator removes the passkey of a user below their own role. */
  async adminReset(actor: AuthUser, targetId: number): Promise<void> {
    const target = await this.ctx.usersStore.findById(targetId);
    if (!target) throw coded(ErrorCode.UserNotFound, 'user does not exist');
    if (target.role >= actor.role)
      throw refused(
        'cannot reset the passkey of a user at the same or a higher permission level',
        ErrorCode.UserLevelRefused,
      );
    const row = await this.store.findByUser(targetId);
    if (!row || !(await this.store.removeByUser(targetId)))
      throw coded(ErrorCode.PasskeyNotRegistered, 'this user has no passkey');
    await this.endSessionsOf(row);
  }

  private async endSessionsOf(row: PasskeyRow): Promise<void> {
    await this.ctx.users.credentials.endIdentity('identity_unbound', SessionOrigins.passkey(row.id), row.user_id);
  }
}

export const passkeysOf = perContext((ctx: AppContext) => new PasskeyService(ctx));
