import { Role, ErrorCode } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { refused, coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import type { AuthUser } from '../../core/auth-user.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/store.js';
import { GITHUB, LINUXDO, OIDC, TELEGRAM, WECHAT, type ProviderInfo } from './account.js';
import { OAuthStore } from './store.js';
import { SessionOrigins } from '../auth/session-origin.js';
import type { SignInSwitch } from '../auth/sign-in-switches.js';
import { CustomOAuthStore } from '../custom-oauth/store.js';

/** Every third-party sign-in this gateway has, in the order the console lists them. */
export const BINDING_PROVIDERS: readonly ProviderInfo[] = [GITHUB, OIDC, LINUXDO, WECHAT, TELEGRAM];

/** Switching a built-in provider off ends the sessions it opened (auth/sign-in-switches.ts). */
export const BUILT_IN_SIGN_IN_SWITCHES: readonly SignInSwitch[] = BINDING_PROVIDERS.map((p) => ({
  option: p.enabledOption,
  origin: SessionOrigins.oauth(p.key),
}));

/** new-api's binding type of the email address. */
const EMAIL = 'email';

/**
 * One bound account in new-api's shape; provider_id is a built-in provider's key, or a root-defined provider's
 * numeric id (as new-api answers it).
 */
export interface OAuthBinding {
  provider_id: string | number;
  provider_name: string;
  provider_slug: string;
  provider_icon: string;
  provider_user_id: string;
}

const bindingsOf = (u: UserRow): OAuthBinding[] =>
  BINDING_PROVIDERS.filter((p) => u[p.field]).map((p) => ({
    provider_id: p.key,
    provider_name: p.label,
    provider_slug: p.key,
    provider_icon: '',
    provider_user_id: u[p.field],
  }));

/**
 * The third-party accounts bound to a user, read from the users columns, and their release. A user keeps at
 * least one way to sign in: the last binding of a user without an email address is not released.
 */
export class OAuthBindingsService {
  constructor(
    private readonly users: UsersService,
    private readonly store: OAuthStore,
    private readonly custom: CustomOAuthStore,
  ) {}

  async own(caller: AuthUser): Promise<OAuthBinding[]> {
    return this.allOf(await this.users.get(caller.id));
  }

  async ofUser(actor: AuthUser, id: number): Promise<OAuthBinding[]> {
    return this.allOf(await this.target(actor, id));
  }

  /** The built-in accounts of the users columns, then the root-defined providers' (user_oauth_bindings). */
  private async allOf(user: UserRow): Promise<OAuthBinding[]> {
    const custom = await this.custom.bindingsOf(user.id);
    if (custom.length === 0) return bindingsOf(user);
    const providers = new Map((await this.custom.list()).map((p) => [p.id, p]));
    const rows: OAuthBinding[] = [];
    for (const b of custom) {
      const p = providers.get(b.provider_id);
      if (p)
        rows.push({
          provider_id: p.id,
          provider_name: p.name,
          provider_slug: p.slug,
          provider_icon: p.icon,
          provider_user_id: b.provider_user_id,
        });
    }
    return [...bindingsOf(user), ...rows];
  }

  async unbindOwn(caller: AuthUser, provider: string): Promise<void> {
    await this.unbind(await this.users.get(caller.id), provider);
  }

  async unbindOfUser(actor: AuthUser, id: number, provider: string): Promise<void> {
    await this.unbind(await this.target(actor, id), provider);
  }

  /**
   * new-api's "clear binding" of an administrator: a provider's account as unbindOfUser, or the email address
   * (kept while it is the user's only way to sign in besides the password).
   */
  async clearOfUser(actor: AuthUser, id: number, type: string): Promise<void> {
    const user = await this.target(actor, id);
    if (type !== EMAIL) return this.unbind(user, type);
    if (!user.email) throw coded(ErrorCode.EmailNotBound, 'no email address is bound');
    if ((await this.allOf(user)).length === 0)
      throw coded(
        ErrorCode.EmailOnlyRecovery,
        'the email address is the only way to recover this account: bind another sign-in first',
      );
    await this.users.store.update(user.id, { email: '' });
    await this.users.notifyChanged(user.id);
  }

  /** A user an administrator may look at: below the actor's level (the super administrator sees everyone). */
  private async target(actor: AuthUser, id: number): Promise<UserRow> {
    const user = await this.users.get(id);
    if (user.deleted_at) throw coded(ErrorCode.UserNotFound, 'user does not exist');
    if (actor.role < Role.Root && user.role >= actor.role && user.id !== actor.id)
      throw refused('no permission to manage this user', ErrorCode.UserLevelRefused);
    return user;
  }

  private async unbind(user: UserRow, key: string): Promise<void> {
    if (/^\d+$/.test(key)) return this.unbindCustom(user, Number(key));
    const p = BINDING_PROVIDERS.find((x) => x.key === key);
    if (!p) throw coded(ErrorCode.OAuthUnknownProvider, `unknown provider: ${key}`, { provider: key });
    if (!user[p.field]) throw coded(ErrorCode.OAuthNotBound, `no ${p.label} account is bound`, { provider: p.label });
    if (!user.email && (await this.allOf(user)).length === 1)
      throw coded(
        ErrorCode.OAuthOnlySignIn,
        `the ${p.label} account is the only way to sign in: bind an email address first`,
        { provider: p.label },
      );
    await this.store.unbind(p, user.id);
    // Whoever is signed in by that account is signed in by nothing now.
    await this.users.credentials.endIdentity('identity_unbound', SessionOrigins.oauth(p.key), user.id);
    await this.users.notifyChanged(user.id);
  }

  /** Releases the user's account with a root-defined provider and ends the sessions it opened. */
  private async unbindCustom(user: UserRow, providerId: number): Promise<void> {
    const bindings = await this.allOf(user);
    const mine = bindings.find((b) => b.provider_id === providerId);
    const label = mine?.provider_name ?? String(providerId);
    if (!mine) throw coded(ErrorCode.OAuthNotBound, `no ${label} account is bound`, { provider: label });
    if (!user.email && bindings.length === 1)
      throw coded(
        ErrorCode.OAuthOnlySignIn,
        `the ${label} account is the only way to sign in: bind an email address first`,
        { provider: label },
      );
    await this.custom.unbind(user.id, providerId);
    await this.users.credentials.endIdentity('identity_unbound', SessionOrigins.customOAuth(providerId), user.id);
    await this.users.notifyChanged(user.id);
  }
}

export const oauthBindingsOf = perContext(
  (ctx: AppContext) => new OAuthBindingsService(ctx.users, new OAuthStore(ctx.db), new CustomOAuthStore(ctx.db)),
);
