import { isEmailAddress, UserStatus, ErrorCode } from '@tollway/shared';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique.js';
import { ApiError, coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { randomString } from '../../lib/secrets.js';
import type { AuthUser } from '../../core/auth-user.js';
import type { OptionsService } from '../../core/options/service.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/store.js';
import type { ExternalAccount, ProviderInfo } from './account.js';
import { OAuthStore } from './store.js';

export type SignInResult = { kind: 'bind' } | { kind: 'login'; user: UserRow };

const MAX_DISPLAY_NAME = 20;

/** Another user holds the provider's account (the refusal of a bind; a registration that lost a race). */
class AccountTaken extends ApiError {}

const accountTaken = (p: ProviderInfo): AccountTaken =>
  new AccountTaken(`this ${p.label} account is already bound to another user`, 409, true, {
    code: ErrorCode.OAuthAccountTaken,
    params: { provider: p.label },
  });

/** The holder found for a sign-in logs in unless deleted or banned. */
function admit(p: ProviderInfo, holder: UserRow): UserRow {
  if (holder.deleted_at !== null)
    throw coded(ErrorCode.OAuthUserDeleted, `the user bound to this ${p.label} account has been deleted`, {
      provider: p.label,
    });
  if (holder.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
  return holder;
}

/**
 * Login-or-bind for every third-party provider: a logged-in caller binds the provider's account; otherwise the
 * user holding it logs in, or, when registration is open, a new user is created with it.
 */
export class OAuthService {
  constructor(
    private readonly options: OptionsService,
    private readonly users: UsersService,
    private readonly store: OAuthStore,
  ) {}

  /** Refuses a provider whose sign-in the administrator has not enabled. */
  assertEnabled(p: ProviderInfo): void {
    if (!this.options.bool(p.enabledOption))
      throw coded(ErrorCode.OAuthDisabled, `the administrator has not enabled ${p.label} sign-in`, {
        provider: p.label,
      });
  }

  /** Binds for a logged-in `caller`, else logs in or registers (with the invite code `aff`). */
  async signIn(
    p: ProviderInfo,
    account: ExternalAccount,
    caller: AuthUser | undefined,
    aff: string,
  ): Promise<SignInResult> {
    if (caller) {
      await this.bind(p, account, caller);
      return { kind: 'bind' };
    }
    return { kind: 'login', user: await this.loginOrRegister(p, account, aff) };
  }

  /** Binds the provider's account to `caller`; refused when another user holds it. */
  async bind(p: ProviderInfo, account: ExternalAccount, caller: AuthUser): Promise<void> {
    if (caller.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
    const holder = await this.store.findHolder(p, account.id);
    if (holder && holder.id !== caller.id) throw accountTaken(p);
    if (holder) return;
    try {
      await this.store.bind(p, caller.id, account.id);
    } catch (err) {
      // A bind of the same account by someone else committed first (the primary key refused ours, or MySQL
      // picked ours as a deadlock's victim): the same answer as when it was bound before we looked.
      const winner = await this.store.findHolder(p, account.id);
      if (winner?.id === caller.id) return;
      if (winner) throw accountTaken(p);
      throw err;
    }
    await this.users.notifyChanged(caller.id);
  }

  /** The user holding the account (refused when deleted or banned), or a new one when registration is open. */
  async loginOrRegister(p: ProviderInfo, account: ExternalAccount, aff: string): Promise<UserRow> {
    const holder = await this.store.findHolder(p, account.id);
    if (holder) return admit(p, holder);
    if (!this.options.bool('RegisterEnabled')) {
      throw coded(
        ErrorCode.OAuthRegisterDisabled,
        `no user is bound to this ${p.label} account and the administrator has disabled new user registration`,
        { provider: p.label },
      );
    }
    let id: number;
    try {
      id = await this.register(p, account, aff);
    } catch (err) {
      // A sign-in with the same new account created its user first: ours was rolled back, so log in as that one.
      const winner = await this.store.findHolder(p, account.id);
      if (winner) return admit(p, winner);
      throw err;
    }
    return this.users.get(id);
  }

  /** A new user `<prefix>_<n>` holding the account, with the invite rewards of normal registration. */
  private async register(p: ProviderInfo, account: ExternalAccount, aff: string): Promise<number> {
    const email = await this.usableEmail(account.email);
    let n = (await this.store.maxUserId()) + 1;
    for (let attempt = 0; ; attempt++, n++) {
      const username = `${p.prefix}_${n}`;
      try {
        return await this.users.createSelfRegistered(
          {
            username,
            password: randomString(32),
            display_name: account.displayName.trim().slice(0, MAX_DISPLAY_NAME) || username,
            email,
            external_ids: { [p.field]: account.id },
          },
          aff,
          (trx, id) => this.claim(trx, p, account.id, id),
        );
      } catch (err) {
        if (err instanceof AccountTaken || !(err instanceof ApiError && err.status === 409) || attempt >= 20) throw err;
      }
    }
  }

  /** Records the new user `userId` as the account's holder, in the transaction creating it. */
  private async claim(trx: Transaction<Database>, p: ProviderInfo, externalId: string, userId: number): Promise<void> {
    try {
      await this.store.claim(trx, p, externalId, userId);
    } catch (err) {
      if (isUniqueViolation(err)) throw accountTaken(p);
      throw err;
    }
  }

  /** The provider's email when it is well formed and no other user has it; '' otherwise. */
  private async usableEmail(raw: string): Promise<string> {
    const email = raw.trim();
    if (!isEmailAddress(email)) return '';
    return (await this.users.store.emailTaken(email)) ? '' : email;
  }
}

export const oauthOf = perContext(
  (ctx: AppContext) => new OAuthService(ctx.options, ctx.users, new OAuthStore(ctx.db)),
);
