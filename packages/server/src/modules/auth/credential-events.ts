import type { SessionOrigin, SessionOriginFamily } from './session-origin.js';
import type { SessionStore } from './session-store.js';

/**
 * The account events that touch credentials. Every route that causes one calls CredentialEvents.apply with it;
 * none ends a session or an access token on its own.
 */
export type CredentialEvent =
  | 'logout'
  | 'sign_out_everywhere'
  | 'password_changed'
  | 'password_reset'
  | 'two_factor_enabled'
  | 'two_factor_disabled'
  | 'two_factor_reset_by_admin'
  | 'user_disabled'
  | 'user_deleted'
  | 'role_lowered';

/** Which console sessions of the user end: none, the caller's, all but the caller's, or all. */
export type SessionsEffect = 'none' | 'this' | 'others' | 'all';

/** What one event does to each credential kind of the user. */
export interface CredentialEffect {
  sessions: SessionsEffect;
  /** 'ends': the access token is erased (a new one must be generated from a session). */
  accessToken: 'stays' | 'ends';
  /**
   * `sk-` API keys: 'stay' (keys the user manages outlive sign-in changes), or 'refused' while the account is
   * disabled or deleted (the relay checks the user's status; every node drops its cached copy on the event).
   */
  apiKeys: 'stay' | 'refused';
  /** Sign-in by a bound third-party account: refused while the account is disabled or deleted (oauth/service.ts). */
  oauthBindings: 'stay' | 'refused';
  /** The 2FA enrolment (secret and backup codes): 'erased' when nothing may ever use it again. */
  twoFactor: 'stays' | 'erased';
  /** The passkey (modules/passkeys): 'erased' when nothing may ever use it again. */
  passkeys: 'stay' | 'erased';
}

/**
 * The credential table (docs/security.md holds the same table; credentials-matrix.test.ts tests it on every
 * database and across two nodes). The role is never copied into a credential: sessions and access tokens read
 * the user's row on every request, so a lowered role takes admin-only powers away at once without ending them.
 */
export const CREDENTIAL_TABLE: Readonly<Record<CredentialEvent, CredentialEffect>> = {
  logout: {
    sessions: 'this',
    accessToken: 'stays',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  // Everything that signs in but the session asking (an access token asking ends too).
  sign_out_everywhere: {
    sessions: 'others',
    accessToken: 'ends',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  // All sessions end; the browser that changed the password is then given a fresh one (users/routes-self.ts).
  password_changed: {
    sessions: 'all',
    accessToken: 'ends',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  password_reset: {
    sessions: 'all',
    accessToken: 'ends',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  // Whatever was signed in with the password alone must not outlive the switch.
  two_factor_enabled: {
    sessions: 'others',
    accessToken: 'ends',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  // The owner proved a current code: nothing else changes.
  two_factor_disabled: {
    sessions: 'none',
    accessToken: 'stays',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  // Account recovery: whoever held the old sign-ins may be the reason for it.
  two_factor_reset_by_admin: {
    sessions: 'all',
    accessToken: 'ends',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  // Sessions and the access token end for good; keys and bindings are refused while disabled, back when enabled.
  user_disabled: {
    sessions: 'all',
    accessToken: 'ends',
    apiKeys: 'refused',
    oauthBindings: 'refused',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
  user_deleted: {
    sessions: 'all',
    accessToken: 'ends',
    apiKeys: 'refused',
    oauthBindings: 'refused',
    twoFactor: 'erased',
    passkeys: 'erased',
  },
  role_lowered: {
    sessions: 'none',
    accessToken: 'stays',
    apiKeys: 'stay',
    oauthBindings: 'stay',
    twoFactor: 'stays',
    passkeys: 'stay',
  },
};

/**
 * Events that take one sign-in identity away (a bound third-party account, a passkey, a directory account, a
 * root-defined provider). Each ends the console sessions that identity opened (sessions.origin) and nothing else:
 * sessions opened another way, the access token, API keys and 2FA stay (docs/security.md, "Identities").
 * - identity_unbound: the user or an administrator unbinds the account, or removes the passkey;
 * - identity_revoked: the provider no longer vouches for the user (disabled or removed in the directory);
 * - identity_provider_disabled: a root disables or deletes the provider: every user's sessions from it end.
 */
export type IdentityEvent = 'identity_unbound' | 'identity_revoked' | 'identity_provider_disabled';

/** Whose sessions from the identity an event ends: the one user's, or everyone's. */
export const IDENTITY_EVENT_SCOPE: Readonly<Record<IdentityEvent, 'user' | 'everyone'>> = {
  identity_unbound: 'user',
  identity_revoked: 'user',
  identity_provider_disabled: 'everyone',
};

/** What applying an event needs from the users' data; UsersService provides it. */
export interface CredentialHolders {
  sessions: SessionStore;
  /** Erases the user's access token. */
  endAccessToken(userId: number): Promise<void>;
  /** Erases the user's 2FA secret and backup codes. */
  eraseTwoFactor(userId: number): Promise<void>;
  /** Erases the user's passkey. */
  erasePasskeys(userId: number): Promise<void>;
  /** Tells every cache of this node and the others (the relay's keys and balances) that the user changed. */
  notifyChanged(userId: number): Promise<void>;
}

/** Applies CREDENTIAL_TABLE: the one place where an account event ends credentials. */
export class CredentialEvents {
  constructor(private readonly holders: CredentialHolders) {}

  /**
   * Applies `event` to `userId`'s credentials. `currentSessionKey` is the row key of the session making the
   * request, when it is one. Returns how many sessions ended.
   */
  async apply(event: CredentialEvent, userId: number, currentSessionKey?: string): Promise<number> {
    const effect = CREDENTIAL_TABLE[event];
    const ended = await this.endSessions(effect.sessions, userId, currentSessionKey);
    if (effect.accessToken === 'ends') await this.holders.endAccessToken(userId);
    if (effect.twoFactor === 'erased') await this.holders.eraseTwoFactor(userId);
    if (effect.passkeys === 'erased') await this.holders.erasePasskeys(userId);
    // The relay refuses keys of a disabled or deleted user once its cached copy is dropped, on every node.
    if (effect.apiKeys === 'refused' || event === 'role_lowered') await this.holders.notifyChanged(userId);
    return ended;
  }

  /**
   * Applies an identity event: ends the sessions `origin` opened (a family: any of its origins), of `userId`
   * (user-scoped events) or of every user. Returns how many sessions ended.
   */
  async endIdentity(
    event: IdentityEvent,
    origin: SessionOrigin | SessionOriginFamily,
    userId?: number,
  ): Promise<number> {
    if (IDENTITY_EVENT_SCOPE[event] === 'user') {
      if (userId === undefined) throw new Error(`${event} needs the user`);
      return this.holders.sessions.deleteByOrigin(origin, userId);
    }
    return this.holders.sessions.deleteByOrigin(origin);
  }

  private async endSessions(effect: SessionsEffect, userId: number, currentKey: string | undefined): Promise<number> {
    const sessions = this.holders.sessions;
    switch (effect) {
      case 'none':
        return 0;
      case 'this':
        return currentKey && (await sessions.deleteOwn(userId, currentKey)) ? 1 : 0;
      case 'others':
        return sessions.deleteForUser(userId, currentKey);
      case 'all':
        return sessions.deleteForUser(userId);
    }
  }
}
