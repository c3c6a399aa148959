import type { OptionKey } from '@tollway/shared';
import type { AppContext } from '../../context.js';

/** The users column that holds a provider's account id. */
export type ExternalIdField = 'github_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'linux_do_id';

/** A provider's key in user_identities (the keys migration 0010 backfilled). */
export type IdentityProvider = 'github' | 'oidc' | 'wechat' | 'telegram' | 'linuxdo';

/** What the login-or-bind logic needs to know about a provider. */
export interface ProviderInfo {
  /** The provider column of user_identities, whose primary key gives an account to at most one user. */
  key: IdentityProvider;
  /** Name in messages (GitHub, OIDC, LinuxDO, WeChat, Telegram). */
  label: string;
  field: ExternalIdField;
  /** New users are named `<prefix>_<n>`. */
  prefix: string;
  /** The option that turns the provider's sign-in on. */
  enabledOption: OptionKey;
}

/** What a provider's sign-in reads: its options (client id, secret, endpoints) and the configured base URLs. */
export type ProviderSignInDeps = Pick<AppContext, 'options' | 'config'>;

/** A provider's user as the provider reported it. */
export interface ExternalAccount {
  id: string;
  /** The provider's display name (or login), used for a new user. */
  displayName: string;
  /** Given only when the provider reports one. */
  email: string;
}

export const GITHUB: ProviderInfo = {
  key: 'github',
  label: 'GitHub',
  field: 'github_id',
  prefix: 'github',
  enabledOption: 'GitHubOAuthEnabled',
};
export const OIDC: ProviderInfo = {
  key: 'oidc',
  label: 'OIDC',
  field: 'oidc_id',
  prefix: 'oidc',
  enabledOption: 'oidc.enabled',
};
export const LINUXDO: ProviderInfo = {
  key: 'linuxdo',
  label: 'LinuxDO',
  field: 'linux_do_id',
  prefix: 'linuxdo',
  enabledOption: 'LinuxDOOAuthEnabled',
};
export const WECHAT: ProviderInfo = {
  key: 'wechat',
  label: 'WeChat',
  field: 'wechat_id',
  prefix: 'wechat',
  enabledOption: 'WeChatAuthEnabled',
};
export const TELEGRAM: ProviderInfo = {
  key: 'telegram',
  label: 'Telegram',
  field: 'telegram_id',
  prefix: 'telegram',
  enabledOption: 'TelegramOAuthEnabled',
};
