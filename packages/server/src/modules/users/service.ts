import {
  LogType,
  Role,
  UserStatus,
  userSetting,
  type QuotaChangeMode,
  type UserSetting,
  ErrorCode,
  inputRefusal,
  type LogEvent,
} from '@tollway/shared';
import type { z } from 'zod';
import { ApiError, refused, notFound, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { nowSeconds } from '../../lib/time.js';
import { CredentialEvents } from '../auth/credential-events.js';
import { SessionStore } from '../auth/session-store.js';
import { TwoFactorStore } from '../twofa/store.js';
import { PasskeyStore } from '../passkeys/store.js';
import type { AccountLogs } from '../../accounting/account-log.js';
import { assertWebhookUrlAllowed } from '../notifications/webhook-url.js';
import type { OptionsService } from '../../core/options/service.js';
import { hashPassword, spendPasswordCheck, verifyPassword } from './password.js';
import { MASKED_SECRET, openSettingSecret, parseSetting, sealSettingSecret } from '../../lib/setting-secret.js';
import { newUserRow, type AfterInsert, type NewUser, type UserRow, type UsersStore } from './store.js';

export interface CreateUserInput {
  username: string;
  password: string;
  display_name?: string;
  role?: number;
  group?: string;
  quota?: number;
  email?: string;
  inviter_id?: number;
  remark?: string;
  /** Third-party accounts bound from the start (sign-in by a provider that creates the user). */
  external_ids?: Partial<Pick<NewUser, 'github_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'linux_do_id'>>;
}

/** Account rules: creating users, logging in, the caller's own profile, access token, invites, settings. */
export class UsersService {
  private readonly changeListeners: ((userId: number) => Promise<void> | void)[] = [];
  /** Every account event that touches credentials goes through this (auth/credential-events.ts holds the table). */
  readonly credentials: CredentialEvents;

  constructor(
    readonly store: UsersStore,
    private readonly options: OptionsService,
    private readonly accountLogs: AccountLogs,
  ) {
    const twoFactor = new TwoFactorStore(store.db);
    const passkeys = new PasskeyStore(store.db);
    this.credentials = new CredentialEvents({
      sessions: new SessionStore(store.db),
      endAccessToken: (userId) => store.update(userId, { access_token: null }),
      eraseTwoFactor: (userId) => twoFactor.erase(userId),
      erasePasskeys: async (userId) => void (await passkeys.removeByUser(userId)),
      notifyChanged: (userId) => this.notifyChanged(userId),
    });
  }

  /** Called after a user's balance, status, group or settings changed (caches of the relay listen). */
  onChanged(listener: (userId: number) => Promise<void> | void): void {
    this.changeListeners.push(listener);
  }

  /** Resolves once every listener took the change in (so the caller's next request sees the new balance). */
  /**
   * An administrator's balance change (one statement) and its manage log, in one transaction; the relay's
   * balance learns it after the commit. False when refused (user gone, or a subtraction below 0).
   */
  async adjustQuota(
    target: Pick<UserRow, 'id' | 'username'>,
    mode: QuotaChangeMode,
    value: number,
    content: string,
    event?: LogEvent,
  ): Promise<boolean> {
    const logs = this.accountLogs.batch();
    const done = await this.store.db.kysely.transaction().execute(async (trx) => {
      if (!(await this.store.adjustQuota(trx, target.id, mode, value))) return false;
      await logs.add(trx, {
        userId: target.id,
        username: target.username,
        type: LogType.Manage,
        content,
        quota: mode === 'subtract' ? -value : value,
        event,
      });
      return true;
    });
    if (!done) return false;
    logs.committed();
    await this.notifyChanged(target.id);
    return true;
  }

  async notifyChanged(userId: number): Promise<void> {
    await Promise.all(this.changeListeners.map((l) => l(userId)));
  }

  async get(id: number): Promise<UserRow> {
    const u = await this.store.findById(id, true);
    if (!u) throw notFound('user does not exist', ErrorCode.UserNotFound);
    return u;
  }

  /**
   * Inserts a user with a fresh unique invite code. Username uniqueness is checked here and by the index.
   * `after` runs in the inserting transaction (all or nothing).
   */
  async create(input: CreateUserInput, after?: AfterInsert): Promise<number> {
    if (await this.store.usernameTaken(input.username))
      throw coded(ErrorCode.UsernameTaken, 'username already exists', undefined, 409);
    const row = newUserRow({
      username: input.username,
      password: await hashPassword(input.password),
      display_name: input.display_name || input.username,
      role: input.role ?? Role.Common,
      email: input.email ?? '',
      ...input.external_ids,
      quota: input.quota ?? 0,
      group: input.group ?? 'default',
      inviter_id: input.inviter_id ?? 0,
      remark: input.remark ?? '',
      created_at: nowSeconds(),
    });
    for (let attempt = 0; ; attempt++) {
      row.aff_code = randomString(6);
      try {
        return await this.store.insert(row, after);
      } catch (err) {
        // An ApiError comes from `after` refusing the user: another invite code would not change its mind.
        if (err instanceof ApiError) throw err;
        if (await this.store.usernameTaken(input.username))
          throw coded(ErrorCode.UsernameTaken, 'username already exists', undefined, 409);
        if (attempt >= 4) throw err;
      }
    }
  }

  /**
   * Self-registration with the registration switches, new-user quota and invite rewards (createSelfRegistered).
   * With EmailVerificationEnabled the email and the code mailed to it are required; `verifyEmail` uses the code
   * up once every other rule passed.
   */
  async register(
    input: {
      username: string;
      password: string;
      password2?: string;
      email: string;
      verification_code?: string;
      aff_code: string;
    },
    verifyEmail?: (email: string, code: string) => Promise<void>,
  ): Promise<number> {
    const o = this.options;
    if (!o.bool('RegisterEnabled'))
      throw coded(ErrorCode.RegisterDisabled, 'the administrator has disabled new user registration');
    if (!o.bool('PasswordRegisterEnabled'))
      throw coded(
        ErrorCode.PasswordRegisterDisabled,
        'the administrator has disabled registration with username and password',
      );
    if (input.password2 !== undefined && input.password2 !== '' && input.password2 !== input.password)
      throw coded(ErrorCode.PasswordsDiffer, 'the two passwords differ');
    const mustVerify = o.bool('EmailVerificationEnabled');
    if (mustVerify && (!input.email || !input.verification_code?.trim())) {
      throw coded(
        ErrorCode.EmailVerificationRequired,
        'email and verification code are required: the administrator has enabled email verification',
      );
    }
    if (mustVerify && !verifyEmail)
      throw coded(
        ErrorCode.EmailVerifyUnavailable,
        'email verification is required but this server cannot check codes',
      );
    if (await this.store.usernameTaken(input.username))
      throw coded(ErrorCode.UsernameTaken, 'username already exists', undefined, 409);
    if (input.email && (await this.store.emailTaken(input.email)))
      throw coded(ErrorCode.EmailTaken, 'email already in use', undefined, 409);
    if (mustVerify) await verifyEmail!(input.email, input.verification_code ?? '');
    return this.createSelfRegistered(
      { username: input.username, password: input.password, email: input.email },
      input.aff_code,
    );
  }

  /**
   * Creates a self-registered user (password form or third-party sign-in) with QuotaForNewUser and the invite
   * rewards: with AffEnabled and a valid invite code the invitee starts with QuotaForInvitee more, and the
   * inviter gains one invitee and QuotaForInviter of invite quota (aff_quota and aff_history), both logged, in
   * the transaction that creates the user. An unknown code registers without rewards. `claim` runs first in
   * that transaction (a third-party sign-in records the account there; its refusal creates nothing).
   */
  async createSelfRegistered(
    input: Omit<CreateUserInput, 'inviter_id' | 'quota' | 'role' | 'group'>,
    affCode: string,
    claim?: AfterInsert,
  ): Promise<number> {
    const o = this.options;
    const inviter = affCode && o.bool('AffEnabled') ? await this.store.findByAffCode(affCode) : undefined;
    const inviteeBonus = inviter ? o.num('QuotaForInvitee') : 0;
    const inviterReward = inviter ? o.num('QuotaForInviter') : 0;
    const logs = this.accountLogs.batch();
    const rewardInvite: AfterInsert | undefined = inviter
      ? async (trx, id) => {
          await this.store.creditInviter(inviter.id, inviterReward, trx);
          if (inviteeBonus > 0) {
            const content = `invite code bonus: received ${inviteeBonus} quota`;
            await logs.add(trx, {
              userId: id,
              username: input.username,
              type: LogType.System,
              content,
              quota: inviteeBonus,
              event: { kind: 'invite_bonus', quota: inviteeBonus },
            });
          }
          if (inviterReward > 0) {
            const content = `invited ${input.username}: received ${inviterReward} invite quota`;
            await logs.add(trx, {
              userId: inviter.id,
              username: inviter.username,
              type: LogType.System,
              content,
              quota: inviterReward,
              event: { kind: 'invite_reward', quota: inviterReward, invitee: input.username },
            });
          }
        }
      : undefined;
    const after: AfterInsert | undefined =
      claim && rewardInvite
        ? async (trx, id) => {
            await claim(trx, id);
            await rewardInvite(trx, id);
          }
        : (claim ?? rewardInvite);
    const id = await this.create(
      { ...input, inviter_id: inviter?.id ?? 0, quota: o.num('QuotaForNewUser') + inviteeBonus },
      after,
    );
    logs.committed();
    if (inviter) await this.notifyChanged(inviter.id);
    return id;
  }

  /**
   * Checks credentials; a deleted user is never found, a banned one is refused. The login name means one account
   * or none: with '@' the live user holding that email (an account named with '@' before names could not hold
   * it, when no one holds such an email), else the username; an email held by several live users is refused,
   * never resolved by id. Every refusal spends the work of a password check, so timing tells nothing.
   */
  async login(username: string, password: string): Promise<UserRow> {
    if (!this.options.bool('PasswordLoginEnabled'))
      throw coded(ErrorCode.PasswordLoginDisabled, 'the administrator has disabled password login');
    const matches = await this.store.findByLogin(username);
    if (matches.length > 1) {
      await spendPasswordCheck(password);
      throw coded(ErrorCode.EmailAmbiguous, 'more than one account uses this email: log in with your username');
    }
    const u = matches[0] ?? (username.includes('@') ? await this.store.findByUsername(username) : undefined);
    // No live account: a deleted one with this name and password is told so (only with its password: the
    // answer names no account to a guesser); one password check either way.
    const gone = u ? undefined : await this.store.findDeletedByLogin(username);
    const ok = await verifyPassword(password, (u ?? gone)?.password ?? '');
    if (gone && ok) throw coded(ErrorCode.UserDeleted, 'this account has been deleted');
    if (!u || !ok) throw coded(ErrorCode.LoginFailed, 'username or password is wrong, or the user has been banned');
    if (u.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
    return u;
  }

  async updateSelf(
    id: number,
    input: { display_name?: string; password?: string; original_password?: string },
  ): Promise<void> {
    const u = await this.get(id);
    const fields: Partial<NewUser> = {};
    if (input.display_name !== undefined) fields.display_name = input.display_name || u.username;
    if (input.password) {
      if (!input.original_password || !(await verifyPassword(input.original_password, u.password))) {
        throw coded(ErrorCode.OriginalPasswordWrong, 'the original password is wrong');
      }
      fields.password = await hashPassword(input.password);
    }
    await this.store.update(id, fields);
    if (fields.password) await this.credentials.apply('password_changed', id);
    await this.notifyChanged(id);
  }

  async deleteSelf(id: number): Promise<void> {
    const u = await this.get(id);
    if (u.role >= Role.Root) throw refused('the super administrator cannot be deleted', ErrorCode.RootProtected);
    await this.store.softDelete(id, new Date().toISOString());
    await this.credentials.apply('user_deleted', id);
  }

  /** Generates a new access token (replacing the old one) and returns it. */
  async regenerateAccessToken(id: number): Promise<string> {
    const token = randomString(32);
    await this.store.update(id, { access_token: token });
    return token;
  }

  async affCode(id: number): Promise<string> {
    return (await this.get(id)).aff_code;
  }

  /** Moves invite rewards to the balance; at least one quota unit, atomic. */
  async transferAffQuota(id: number, amount: number): Promise<void> {
    const min = this.options.num('QuotaPerUnit');
    if (amount < min) throw coded(ErrorCode.AffTransferMinimum, `the minimum transfer amount is ${min}`, { min });
    if (!(await this.store.transferAffQuota(id, amount)))
      throw coded(ErrorCode.AffQuotaInsufficient, 'insufficient invite quota');
    await this.notifyChanged(id);
  }

  async updateSetting(id: number, input: z.input<typeof userSetting>): Promise<UserSetting> {
    const current = await this.get(id);
    const box = this.options.secretBox;
    const stored = parseSetting(openSettingSecret(current.setting, box));
    // The masked placeholder sent back unchanged keeps the stored secret.
    const given =
      input.webhook_secret === MASKED_SECRET
        ? { ...input, webhook_secret: stored.webhook_secret as string | undefined }
        : input;
    const merged = userSetting.safeParse({ ...stored, ...given });
    if (!merged.success) {
      // Coded as an input check of the setting the issue names (webhook_url, notification_email).
      const issue = merged.error.issues[0]!;
      const refusal = inputRefusal(issue, issue.path.map(String).join('.') || 'setting');
      throw coded(refusal.code, issue.message, refusal.params);
    }
    const setting = merged.data;
    if (setting.notify_type === 'webhook' && !setting.webhook_url)
      throw coded(ErrorCode.WebhookUrlRequired, 'webhook_url is required for webhook notifications');
    if (setting.webhook_url && setting.webhook_url !== stored.webhook_url)
      await assertWebhookUrlAllowed(this.options, setting.webhook_url);
    await this.store.update(id, { setting: sealSettingSecret(JSON.stringify(setting), box) });
    await this.notifyChanged(id);
    return setting;
  }
}
