import { ErrorCode } from '@tollway/shared';
import { conflict, coded } from '../../lib/errors.js';
import { Mailer } from '../../lib/mailer.js';
import { mailLinkOrigin } from '../../lib/server-address.js';
import { MemoryOneTimeCodes, RedisOneTimeCodes, type OneTimeCodes } from '../../lib/one-time-codes.js';
import { perContext } from '../../per-context.js';
import { randomString } from '../../lib/secrets.js';
import type { OptionsService } from '../../core/options/service.js';
import { hashPassword } from '../users/password.js';
import type { UsersService } from '../users/service.js';
import { checkEmailRestrictions, validEmail } from './rules.js';

export const VERIFICATION_TTL_MS = 10 * 60_000;
export const RESET_TTL_MS = 15 * 60_000;
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const CODE_WRONG = 'verification code wrong or expired';
export const RESET_INVALID = 'reset link invalid or expired';

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const verifyKey = (email: string): string => `verify:${email.toLowerCase()}`;
const resetKey = (email: string): string => `reset:${email.toLowerCase()}`;

/** Mail verification codes (registration, binding an email) and password reset by mailed link. */
export class EmailService {
  constructor(
    private readonly options: OptionsService,
    private readonly users: UsersService,
    private readonly mailer: Mailer,
    private readonly codes: OneTimeCodes,
  ) {}

  /** Checks the address against the restrictions and that no one uses it, then mails a 6-character code valid 10 minutes. */
  async sendVerificationCode(raw: string): Promise<void> {
    const email = validEmail(raw);
    checkEmailRestrictions(email, this.options);
    if (await this.users.store.emailTaken(email)) throw conflict('email already in use', ErrorCode.EmailTaken);
    this.mailer.assertConfigured();
    const code = randomString(6, CODE_ALPHABET);
    await this.codes.put(verifyKey(email), code, VERIFICATION_TTL_MS);
    const name = escapeHtml(this.options.get('SystemName'));
    await this.mailer.send({
      to: email,
      subject: `${this.options.get('SystemName')} email verification`,
      html: `<p>Hello, you are verifying your email address for ${name}.</p><p>Your verification code is: <strong>${code}</strong></p><p>The code is valid for 10 minutes. If you did not ask for it, ignore this mail.</p>`,
    });
  }

  /** Uses up the code mailed to `email`; refuses a wrong, expired or already used code. */
  async consumeVerificationCode(email: string, code: string): Promise<void> {
    const given = code.trim().toUpperCase();
    if (!given || !(await this.codes.consume(verifyKey(email.trim()), given)))
      throw coded(ErrorCode.VerificationCodeWrong, CODE_WRONG);
  }

  /** Sets the caller's email after checking the code mailed to it. */
  async bindEmail(userId: number, raw: string, code: string): Promise<void> {
    const email = validEmail(raw);
    if (!code.trim()) throw coded(ErrorCode.VerificationCodeRequired, 'verification code is required');
    checkEmailRestrictions(email, this.options);
    if (await this.users.store.emailTaken(email, userId)) throw conflict('email already in use', ErrorCode.EmailTaken);
    await this.consumeVerificationCode(email, code);
    await this.users.store.update(userId, { email });
    await this.users.notifyChanged(userId);
  }

  /**
   * Mails a reset link valid 15 minutes to the account holding `raw`. An unknown address gets the same answer
   * and no mail, so the endpoint does not tell which addresses have accounts. The link is on ServerAddress only
   * (never the request's host); while it is unset every request is refused alike and nothing is mailed.
   */
  async sendPasswordReset(raw: string): Promise<void> {
    const email = validEmail(raw);
    this.mailer.assertConfigured();
    const base = mailLinkOrigin(this.options);
    const user = await this.users.store.findByEmail(email);
    if (!user) return;
    const token = randomString(32);
    await this.codes.put(resetKey(user.email), token, RESET_TTL_MS);
    const link = `${base}/user/reset?email=${encodeURIComponent(user.email)}&token=${token}`;
    const name = escapeHtml(this.options.get('SystemName'));
    await this.mailer.send({
      to: user.email,
      subject: `${this.options.get('SystemName')} password reset`,
      html: `<p>Hello, you asked to reset your ${name} password.</p><p>Open this link to get a new password: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>The link is valid for 15 minutes and works once. If you did not ask for it, ignore this mail.</p>`,
    });
  }

  /** Uses up the reset token and gives the account a new random password, which is returned. */
  async resetPassword(raw: string, token: string): Promise<string> {
    const email = raw.trim();
    if (!email || !token.trim()) throw coded(ErrorCode.ResetLinkInvalid, RESET_INVALID);
    const user = await this.users.store.findByEmail(email);
    if (!user || !(await this.codes.consume(resetKey(user.email), token.trim())))
      throw coded(ErrorCode.ResetLinkInvalid, RESET_INVALID);
    const password = randomString(12);
    await this.users.store.update(user.id, { password: await hashPassword(password) });
    await this.users.credentials.apply('password_reset', user.id);
    await this.users.notifyChanged(user.id);
    return password;
  }
}

/** The app's email service; codes live in Redis when the app has one, so every node can check them. */
export const emailOf = perContext(
  (ctx) =>
    new EmailService(
      ctx.options,
      ctx.users,
      new Mailer(ctx.options),
      ctx.redis ? new RedisOneTimeCodes(ctx.redis, ctx.config.redisKeyPrefix) : new MemoryOneTimeCodes(),
    ),
);
