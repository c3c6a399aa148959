import { ErrorCode } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { isUniqueViolation } from '../../db/unique.js';
import { coded, conflict } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { SessionOrigins } from '../auth/session-origin.js';
import type { UserRow } from '../users/store.js';
import { ldapOf, type LdapService } from './service.js';

const LABEL = 'LDAP';
/** The users columns of the built-in third-party accounts: another way to sign in when one is set. */
const OTHER_SIGN_INS = ['github_id', 'oidc_id', 'wechat_id', 'telegram_id', 'linux_do_id'] as const;

const taken = () =>
  conflict(`this ${LABEL} account is already bound to another user`, ErrorCode.OAuthAccountTaken, {
    provider: LABEL,
  });

/**
 * The caller's own directory account: an existing user (created with a password, or by another sign-in) binds
 * it by signing in to the directory once, and releases it. A directory sign-in never takes over an account of
 * the same name by itself.
 */
export class LdapBindings {
  constructor(private readonly ctx: AppContext) {}

  private get ldap(): LdapService {
    return ldapOf(this.ctx);
  }

  async status(caller: AuthUser): Promise<{ bound: boolean; username: string }> {
    const id = await this.ldap.store.externalIdOf(caller.id);
    return { bound: id !== undefined, username: id ?? '' };
  }

  /** Binds the directory account that `password` proves to the caller; refused when another user holds it. */
  async bind(caller: AuthUser, username: string, password: string): Promise<{ username: string }> {
    const externalId = (await this.ldap.verify(username, password)).externalId;
    const holder = await this.ldap.store.findHolder(externalId);
    if (holder && holder.id !== caller.id) throw taken();
    if (holder) return { username: externalId };
    try {
      await this.ldap.store.bind(caller.id, externalId);
    } catch (err) {
      const winner = await this.ldap.store.findHolder(externalId);
      if (winner?.id === caller.id) return { username: externalId };
      if (winner || isUniqueViolation(err)) throw taken();
      throw err;
    }
    return { username: externalId };
  }

  /**
   * Releases the caller's directory account and ends the sessions it opened (identity_unbound); refused while it
   * is the only way back in (no email address for a password reset, no other account bound).
   */
  async unbind(caller: AuthUser): Promise<void> {
    if ((await this.ldap.store.externalIdOf(caller.id)) === undefined)
      throw coded(ErrorCode.OAuthNotBound, `no ${LABEL} account is bound`, { provider: LABEL });
    const user = await this.ctx.users.get(caller.id);
    if (!hasOtherWayIn(user))
      throw coded(
        ErrorCode.OAuthOnlySignIn,
        `the ${LABEL} account is the only way to sign in: bind an email address first`,
        {
          provider: LABEL,
        },
      );
    await this.ldap.store.release(caller.id);
    await this.ctx.users.credentials.endIdentity('identity_unbound', SessionOrigins.ldap, caller.id);
  }
}

const hasOtherWayIn = (u: UserRow): boolean => u.email !== '' || OTHER_SIGN_INS.some((f) => u[f] !== '');

export const ldapBindingsOf = perContext((ctx: AppContext) => new LdapBindings(ctx));
