/**
 * How a console session was signed in, kept on its row (sessions.origin). Events that take an identity away
 * (unbinding it, disabling its provider, the provider disabling the user) end the sessions it opened and no
 * others; every sign-in names its origin when it starts a session (auth/sessions.ts startSession).
 */
export type SessionOrigin = string & { readonly __sessionOrigin: true };

const MAX_ORIGIN = 80;
const ORIGIN_PATTERN = /^[a-z_]+(:[A-Za-z0-9_.-]+)?$/;

function origin(value: string): SessionOrigin {
  if (value.length > MAX_ORIGIN || !ORIGIN_PATTERN.test(value)) throw new Error(`bad session origin: ${value}`);
  return value as SessionOrigin;
}

export const SessionOrigins = {
  /** Username (or email) and password, with or without a second factor (and the session a password change renews). */
  password: origin('password'),
  /** A passkey (WebAuthn) assertion, by the passkey's row id (removing that passkey ends its sessions). */
  passkey: (passkeyId: number): SessionOrigin => origin(`passkey:${passkeyId}`),
  /** The directory (LDAP / Active Directory). */
  ldap: origin('ldap'),
  /** One of the built-in third-party sign-ins, by its key (github, oidc, linuxdo, wechat, telegram). */
  oauth: (providerKey: string): SessionOrigin => origin(`oauth:${providerKey}`),
  /** A root-defined provider (OAuth code, external JWT or trusted header), by its id. */
  customOAuth: (providerId: number): SessionOrigin => origin(`custom_oauth:${providerId}`),
} as const;

/**
 * A family of origins (every passkey, every directory account): what disabling the whole sign-in method ends.
 * Matched as a prefix of sessions.origin.
 */
export type SessionOriginFamily = SessionOrigin | `${string}:`;

export const SessionOriginFamilies = {
  passkeys: 'passkey:',
} as const satisfies Record<string, SessionOriginFamily>;
