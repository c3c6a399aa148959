import type { OptionKey } from '@tollway/shared';

/** The users column that holds a provider's account id. */
export type ExternalIdField = 'github_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'linux_do_id';

/** What the login-or-bind logic needs to know about a provider. */
export interface ProviderInfo {
  /** Name in messages (GitHub, OIDC, LinuxDO, WeChat, Telegram). */
  label: string;
  field: ExternalIdField;
  /** New users are named `<prefix>_<n>`. */
  prefix: string;
  /** The option that turns the provider's sign-in on. */
  enabledOption: OptionKey;
}

/** A provider's user as the provider reported it. */
export interface ExternalAccount {
  id: string;
  /** The provider's display name (or login), used for a new user. */
  displayName: string;
  /** Given only when the provider reports one. */
  email: string;
}

export const GITHUB: ProviderInfo = { label: 'GitHub', field: 'github_id', prefix: 'github', enabledOption: 'GitHubOAuthEnabled' };
export const OIDC: ProviderInfo = { label: 'OIDC', field: 'oidc_id', prefix: 'oidc', enabledOption: 'oidc.enabled' };
export const LINUXDO: ProviderInfo = { label: 'LinuxDO', field: 'linux_do_id', prefix: 'linuxdo', enabledOption: 'LinuxDOOAuthEnabled' };
export const WECHAT: ProviderInfo = { label: 'WeChat', field: 'wechat_id', prefix: 'wechat', enabledOption: 'WeChatAuthEnabled' };
export const TELEGRAM: ProviderInfo = { label: 'Telegram', field: 'telegram_id', prefix: 'telegram', enabledOption: 'TelegramOAuthEnabled' };
