import { ErrorCode, isEmailAddress, newUsername, Role, UserStatus } from '@tollway/shared';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique.js';
import { ApiError, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { perContext } from '../../per-context.js';
import {
  applyMappedIdentity,
  groupExists,
  mapIdentity,
  parseMappingTable,
  type MappedIdentity,
  type MappingRules,
} from '../identity/mapping.js';
import type { UserRow } from '../users/store.js';
import { Directory, DirectoryError, type DirectoryEntry } from './directory.js';
import { ldapSettingsOf, missingLdapSettings } from './settings.js';
import { LdapStore } from './store.js';

/** Longest directory name kept as an identity (user_identities.external_id). */
const MAX_EXTERNAL_ID = 128;
const MAX_DISPLAY_NAME = 20;
/** New users whose directory name cannot be a Tollway user name are named `ldap_<n>`. */
const USERNAME_PREFIX = 'ldap';
const MAX_NAME_ATTEMPTS = 20;
/** The group of a user the mapping table gives none. */
const DEFAULT_GROUP = 'default';
const LOGIN_FAILED = 'the directory username or password is wrong';

const lowerKeys = (table: Record<string, string>): Record<string, string> => {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(table)) out[k.toLowerCase()] = v;
  return out;
};

/** The group and role a directory entry gives; `matched` when a table entry gave the group. */
export interface DirectoryMapping extends MappedIdentity {
  matched: boolean;
}

/** A directory account that proved its password and may sign in. */
export interface VerifiedAccount {
  entry: DirectoryEntry;
  /** The lower-cased LDAPUsernameAttribute value, the binding's key. */
  externalId: string;
  mapped: DirectoryMapping;
}

/** Directory sign-in: the directory checks the password; the user is found by their binding or created. */
export class LdapService {
  readonly store: LdapStore;

  constructor(private readonly ctx: AppContext) {
    this.store = new LdapStore(ctx.db);
  }

  get enabled(): boolean {
    return this.ctx.options.bool('LDAPEnabled');
  }

  /** The directory client for the current settings; refused when sign-in is off or not configured. */
  directory(): Directory {
    if (!this.enabled)
      throw coded(ErrorCode.LdapDisabled, 'the administrator has not enabled directory (LDAP) sign-in');
    const settings = ldapSettingsOf(this.ctx.options);
    const missing = missingLdapSettings(settings);
    if (missing.length) {
      this.ctx.log.warn({ missing }, 'LDAP sign-in is enabled but not configured');
      throw coded(
        ErrorCode.LdapNotConfigured,
        'directory (LDAP) sign-in is not fully configured: contact the administrator',
      );
    }
    return new Directory(settings);
  }

  /** What the client is told when the directory gave no answer (the detail goes to the server log only). */
  refusalOf(err: unknown): unknown {
    if (!(err instanceof DirectoryError)) return err;
    this.ctx.log.warn({ failure: err.failure, detail: err.detail }, 'LDAP directory call failed');
    if (err.failure === 'tls')
      return coded(
        ErrorCode.LdapTlsFailed,
        "the directory server's certificate could not be verified: contact the administrator",
      );
    if (err.failure === 'config')
      return coded(
        ErrorCode.LdapNotConfigured,
        'directory (LDAP) sign-in is not fully configured: contact the administrator',
      );
    return coded(ErrorCode.LdapUnreachable, 'the directory server could not be reached, please try again later');
  }

  /** The group and role the entry's directory groups give (LDAPGroupMapping, LDAPRoleMapping; case-insensitive). */
  mapped(entry: DirectoryEntry): DirectoryMapping {
    const o = this.ctx.options;
    const rules: MappingRules = {
      groupMapping: lowerKeys(parseMappingTable(o.get('LDAPGroupMapping'))),
      groupMode: 'explicit_only',
      roleMapping: lowerKeys(parseMappingTable(o.get('LDAPRoleMapping'))),
      roleMode: 'explicit_only',
    };
    const values = entry.groups.map((g) => g.toLowerCase());
    const mapped: DirectoryMapping = { ...mapIdentity(o, rules, values, values), matched: false };
    mapped.matched = mapped.group !== '';
    // The directory decides once a table is set: in no mapped group is the default group, in no mapped role an
    // ordinary user (a directory administrator removed from the admins group is no longer one).
    if (!mapped.group && Object.keys(rules.groupMapping).length && groupExists(o, DEFAULT_GROUP))
      mapped.group = DEFAULT_GROUP;
    if (!mapped.role && Object.keys(rules.roleMapping).length) mapped.role = Role.Common;
    return mapped;
  }

  /** Whether the mapped identity may sign in: with LDAPGroupRequired a mapped group is needed. */
  allowed(mapped: DirectoryMapping): boolean {
    return !this.ctx.options.bool('LDAPGroupRequired') || mapped.matched;
  }

  /**
   * The directory account `password` proves, in good standing: found, the password bound, not disabled, and in
   * a mapped group when LDAPGroupRequired is on. Refused otherwise, with one answer for every credential failure.
   */
  async verify(rawUsername: string, password: string): Promise<VerifiedAccount> {
    const directory = this.directory();
    const username = rawUsername.trim();
    let entry: DirectoryEntry | undefined;
    try {
      entry = await directory.authenticate(username, password);
    } catch (err) {
      throw this.refusalOf(err);
    }
    const externalId = entry?.username.toLowerCase() ?? '';
    if (!entry || !externalId || externalId.length > MAX_EXTERNAL_ID)
      throw coded(ErrorCode.LdapLoginFailed, LOGIN_FAILED);
    if (entry.disabled) throw coded(ErrorCode.LdapAccountDisabled, 'your directory account is disabled');
    const mapped = this.mapped(entry);
    if (!this.allowed(mapped))
      throw coded(ErrorCode.LdapNotAllowed, 'your directory account is in no group allowed to sign in here');
    return { entry, externalId, mapped };
  }

  /** Signs in with the directory: the user bound to the account (group and role re-mapped), or a new one. */
  async signIn(rawUsername: string, password: string): Promise<UserRow> {
    const { entry, externalId, mapped } = await this.verify(rawUsername, password);
    const holder = await this.store.findHolder(externalId);
    if (holder) return applyMappedIdentity(this.ctx.users, admit(holder), mapped, { group: true, role: true });
    if (!this.ctx.options.bool('LDAPAutoRegister'))
      throw coded(
        ErrorCode.LdapRegisterDisabled,
        'no user is bound to this directory account and the administrator has turned off automatic registration',
      );
    try {
      return await this.ctx.users.get(await this.register(entry, externalId, mapped));
    } catch (err) {
      // A first sign-in of the same account at the same moment created the user: log in as that one.
      const winner = await this.store.findHolder(externalId);
      if (winner) return admit(winner);
      throw err;
    }
  }

  /** A new user for the directory account: its own name when usable, else `ldap_<n>`. */
  private async register(entry: DirectoryEntry, externalId: string, mapped: MappedIdentity): Promise<number> {
    const users = this.ctx.users;
    const email = isEmailAddress(entry.email) && !(await users.store.emailTaken(entry.email)) ? entry.email : '';
    const own = newUsername.safeParse(entry.username);
    let n = (await this.store.maxUserId()) + 1;
    for (let attempt = 0; ; attempt++) {
      const name =
        attempt === 0 && own.success && !(await users.store.usernameTaken(own.data))
          ? own.data
          : `${USERNAME_PREFIX}_${n++}`;
      try {
        return await users.createSelfRegistered(
          {
            username: name,
            password: randomString(32),
            display_name: entry.displayName.slice(0, MAX_DISPLAY_NAME) || name,
            email,
          },
          '',
          (trx, id) => this.claim(trx, externalId, id, mapped),
        );
      } catch (err) {
        const taken = err instanceof ApiError && err.status === 409 && err.detail.code === ErrorCode.UsernameTaken;
        if (!taken || attempt >= MAX_NAME_ATTEMPTS) throw err;
      }
    }
  }

  /** In the creating transaction: the binding, and the mapped group and role. */
  private async claim(
    trx: Transaction<Database>,
    externalId: string,
    userId: number,
    mapped: MappedIdentity,
  ): Promise<void> {
    try {
      await this.store.claim(trx, externalId, userId);
    } catch (err) {
      if (isUniqueViolation(err)) throw coded(ErrorCode.LdapLoginFailed, LOGIN_FAILED, undefined, 409);
      throw err;
    }
    const fields: { group?: string; role?: number } = {};
    if (mapped.group) fields.group = mapped.group;
    if (mapped.role) fields.role = mapped.role;
    if (fields.group !== undefined || fields.role !== undefined)
      await trx.updateTable('users').set(fields).where('id', '=', userId).execute();
  }
}

/** The bound user signs in unless deleted or disabled here. */
function admit(holder: UserRow): UserRow {
  if (holder.deleted_at !== null) throw coded(ErrorCode.UserDeleted, 'this account has been deleted');
  if (holder.status !== UserStatus.Enabled) throw coded(ErrorCode.UserBanned, 'user banned');
  return holder;
}

export const ldapOf = perContext((ctx: AppContext) => new LdapService(ctx));
