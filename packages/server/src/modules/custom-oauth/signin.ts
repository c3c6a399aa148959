// Who a custom provider's identity signs in as: the bound user, a user merged by email, or a new one; with the
// provider's claims synced to the user and its group and role mapped (modules/identity/mapping.ts).
import { ErrorCode, isEmailAddress, Role, UserStatus } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import type { AuthUser } from '../../core/auth-user.js';
import { ApiError, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import {
  applyMappedIdentity,
  mapIdentity,
  mappingMode,
  parseMappingTable,
  type MappingRules,
} from '../identity/mapping.js';
import { OAuthStore } from '../oauth/store.js';
import type { UserRow } from '../users/store.js';
import type { OpenedProvider } from './providers.js';
import { CustomOAuthStore } from './store.js';

/** A user as the provider described them (after its access policy admitted them). */
export interface ExternalIdentity {
  id: string;
  username: string;
  displayName: string;
  email: string;
  /** false when the provider says the email address is not verified (then it never merges accounts). */
  emailVerified: boolean;
  groups: string[];
  roles: string[];
}

export type CustomSignInResult = { kind: 'bind' } | { kind: 'login'; user: UserRow };

const MAX_DISPLAY_NAME = 20;
const MAX_USERNAME = 20;
const USERNAME_CHARS = /^[A-Za-z0-9_.-]+$/;
/** Tries at a free `<slug>_<n>` name before giving up. */
const REGISTER_ATTEMPTS = 20;

export const rulesOf = (p: OpenedProvider): MappingRules => ({
  groupMapping: parseMappingTable(p.group_mapping ?? ''),
  groupMode: mappingMode(p.group_mapping_mode),
  roleMapping: parseMappingTable(p.role_mapping ?? ''),
  roleMode: mappingMode(p.role_mapping_mode),
});

const accountTaken = (p: OpenedProvider) =>
  coded(
    ErrorCode.OAuthAccountTaken,
    `this ${p.name} account is already bound to another user`,
    { provider: p.name },
    409,
  );

function admit(p: OpenedProvider, user: UserRow): UserRow {
  if (user.deleted_at !== null)
    throw coded(ErrorCode.OAuthUserDeleted, `the user bound to this ${p.name} account has been deleted`, {
      provider: p.name,
    });
  if (user.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
  return user;
}

/** Login-or-bind for root-defined providers, on user_oauth_bindings. */
export class CustomSignIn {
  private readonly store: CustomOAuthStore;

  constructor(private readonly ctx: AppContext) {
    this.store = new CustomOAuthStore(ctx.db);
  }

  /** Binds for `binder` (a bind started from the personal settings), else logs in, merges or registers. */
  async signIn(
    p: OpenedProvider,
    who: ExternalIdentity,
    binder: AuthUser | undefined,
    aff: string,
  ): Promise<CustomSignInResult> {
    if (binder) {
      await this.bind(p, who, binder);
      return { kind: 'bind' };
    }
    return { kind: 'login', user: await this.loginOrRegister(p, who, aff) };
  }

  async bind(p: OpenedProvider, who: ExternalIdentity, caller: AuthUser): Promise<void> {
    if (caller.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
    const holder = await this.store.findHolder(p.id, who.id);
    if (holder && holder.id !== caller.id) throw accountTaken(p);
    if (holder) return;
    try {
      await this.ctx.db.kysely.transaction().execute((trx) => this.store.bind(caller.id, p.id, who.id, trx));
    } catch (err) {
      const winner = await this.store.findHolder(p.id, who.id);
      if (winner?.id === caller.id) return;
      if (winner || isUniqueViolation(err)) throw accountTaken(p);
      throw err;
    }
    await this.ctx.users.notifyChanged(caller.id);
  }

  async loginOrRegister(p: OpenedProvider, who: ExternalIdentity, aff: string): Promise<UserRow> {
    const holder = await this.store.findHolder(p.id, who.id);
    if (holder) return this.sync(p, who, admit(p, holder));
    const merged = await this.mergeByEmail(p, who);
    if (merged) return merged;
    if (Number(p.auto_register) !== 1)
      throw coded(
        ErrorCode.CustomOAuthNoAccount,
        `no user is bound to this ${p.name} account and the provider does not create users`,
        { provider: p.name },
      );
    if (!this.ctx.options.bool('RegisterEnabled'))
      throw coded(
        ErrorCode.OAuthRegisterDisabled,
        `no user is bound to this ${p.name} account and the administrator has disabled new user registration`,
        { provider: p.name },
      );
    let id: number;
    try {
      id = await this.register(p, who, aff);
    } catch (err) {
      const winner = await this.store.findHolder(p.id, who.id);
      if (winner) return admit(p, winner);
      throw err;
    }
    // A new user takes the mapped group and role whatever the sync switches say.
    const created = await this.ctx.users.get(id);
    return applyMappedIdentity(this.ctx.users, created, this.mapped(p, who), { group: true, role: true });
  }

  /**
   * With auto_merge_by_email: the one user of the provider's (verified) email address, now bound to the account;
   * never an administrator.
   */
  private async mergeByEmail(p: OpenedProvider, who: ExternalIdentity): Promise<UserRow | undefined> {
    if (Number(p.auto_merge_by_email) !== 1 || !who.emailVerified || !isEmailAddress(who.email)) return undefined;
    const user = await this.ctx.users.store.findByEmail(who.email);
    // An administrator's account is never taken over by an address an outside provider asserts.
    if (!user || user.role >= Role.Admin) return undefined;
    admit(p, user);
    if (await this.store.bindingOf(user.id, p.id)) return undefined;
    try {
      await this.ctx.db.kysely.transaction().execute((trx) => this.store.bind(user.id, p.id, who.id, trx));
    } catch (err) {
      if (isUniqueViolation(err)) throw accountTaken(p);
      throw err;
    }
    return this.sync(p, who, user);
  }

  private mapped(p: OpenedProvider, who: ExternalIdentity) {
    return mapIdentity(this.ctx.options, rulesOf(p), who.groups, who.roles);
  }

  /** The sync_*_on_login switches: the provider's name, display name, email, group and role written to the user. */
  private async sync(p: OpenedProvider, who: ExternalIdentity, user: UserRow): Promise<UserRow> {
    const fields: Partial<Pick<UserRow, 'username' | 'display_name' | 'email'>> = {};
    const name = this.usableUsername(who.username);
    if (Number(p.sync_username_on_login) === 1 && name && name !== user.username && user.role < Role.Root)
      if (!(await this.ctx.users.store.usernameTaken(name, user.id))) fields.username = name;
    const display = who.displayName.trim().slice(0, MAX_DISPLAY_NAME);
    if (Number(p.sync_display_name_on_login) === 1 && display && display !== user.display_name)
      fields.display_name = display;
    if (Number(p.sync_email_on_login) === 1 && isEmailAddress(who.email) && who.email !== user.email)
      if (!(await this.ctx.users.store.emailTaken(who.email, user.id))) fields.email = who.email;
    let current = user;
    if (Object.keys(fields).length) {
      await this.ctx.users.store.update(user.id, fields);
      await this.ctx.users.notifyChanged(user.id);
      current = { ...user, ...fields };
    }
    return applyMappedIdentity(this.ctx.users, current, this.mapped(p, who), {
      group: Number(p.sync_group_on_login) === 1,
      role: Number(p.sync_role_on_login) === 1,
    });
  }

  private usableUsername(raw: string): string {
    const name = raw.trim();
    return name.length <= MAX_USERNAME && USERNAME_CHARS.test(name) ? name : '';
  }

  /** A new user named by the provider's username when free, else `<slug>_<n>`, holding the account. */
  private async register(p: OpenedProvider, who: ExternalIdentity, aff: string): Promise<number> {
    const email = isEmailAddress(who.email) && !(await this.ctx.users.store.emailTaken(who.email)) ? who.email : '';
    const preferred = this.usableUsername(who.username);
    let n = await new OAuthStore(this.ctx.db).maxUserId();
    for (let attempt = 0; ; attempt++) {
      const username =
        attempt === 0 && preferred ? preferred : `${p.slug.slice(0, MAX_USERNAME - 8)}_${++n}`.slice(0, MAX_USERNAME);
      try {
        return await this.ctx.users.createSelfRegistered(
          {
            username,
            password: randomString(32),
            display_name: who.displayName.trim().slice(0, MAX_DISPLAY_NAME) || username,
            email,
          },
          aff,
          async (trx, id) => {
            try {
              await this.store.bind(id, p.id, who.id, trx);
            } catch (err) {
              if (isUniqueViolation(err)) throw accountTaken(p);
              throw err;
            }
          },
        );
      } catch (err) {
        const retry = err instanceof ApiError && err.status === 409 && err.detail.code !== ErrorCode.OAuthAccountTaken;
        if (!retry || attempt >= REGISTER_ATTEMPTS) throw err;
      }
    }
  }
}
