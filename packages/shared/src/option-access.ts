import { optionDefs, optionKeys, resolveOptionKey, type OptionKey } from './options.js';
import { isAdmin, isRoot } from './enums.js';
import { RESPONSE_CACHE_OPTION_KEYS } from './response-cache.js';

/**
 * Who may read and write each option. Administrators (role 10) hold the operation settings: quota, pricing, rate
 * limits, relay behaviour, logs, monitoring, branding. Root alone holds the rest, grouped below by why. Every key
 * must be in exactly one group: a test fails on a key that is in none (so a new option has to be classified).
 */
export type OptionAccess = 'admin' | 'root';

/** Credentials (sealed at rest, never sent back): every `secret()` option is root-only, whatever group it is in. */
export const SECRET_OPTION_KEYS: readonly OptionKey[] = optionKeys.filter(
  (k) => (optionDefs[k] as { secret?: boolean }).secret === true,
);

/** Who may sign in or register, and as whom: a change here could hand an account (or root's) to someone else. */
export const SIGN_IN_OPTION_KEYS = [
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'EmailVerificationEnabled',
  'RegisterEnabled',
  'GitHubOAuthEnabled',
  'GitHubClientId',
  'oidc.enabled',
  'oidc.client_id',
  'oidc.well_known',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
  'WeChatAuthEnabled',
  'WeChatServerAddress',
  'WeChatAccountQRCodeImageURL',
  'TelegramOAuthEnabled',
  'TelegramBotName',
  'LinuxDOOAuthEnabled',
  'LinuxDOClientId',
  'LinuxDOMinimumTrustLevel',
  // Directory sign-in: the server, the service account, who is found and which groups they get
  'LDAPEnabled',
  'LDAPServerURL',
  'LDAPStartTLS',
  'LDAPTLSCACert',
  'LDAPTLSSkipVerify',
  'LDAPTimeoutSeconds',
  'LDAPBindDN',
  'LDAPBaseDN',
  'LDAPUserFilter',
  'LDAPUsernameAttribute',
  'LDAPEmailAttribute',
  'LDAPDisplayNameAttribute',
  'LDAPGroupAttribute',
  'LDAPGroupSearchBaseDN',
  'LDAPGroupSearchFilter',
  'LDAPGroupMapping',
  'LDAPRoleMapping',
  'LDAPGroupRequired',
  'LDAPAutoRegister',
  'LDAPDisabledFilter',
  'LDAPRevalidateSeconds',
  'LDAPDisableRemovedUsers',
  'TwoFactorRequiredForAdmins',
  'TurnstileCheckEnabled',
  'TurnstileSiteKey',
  'EmailDomainRestrictionEnabled',
  'EmailAliasRestrictionEnabled',
  'EmailDomainWhitelist',
  'discord.enabled',
  'discord.client_id',
  'passkey.enabled',
  'passkey.rp_display_name',
  'passkey.rp_id',
  'passkey.origins',
  'passkey.allow_insecure_origin',
  'passkey.user_verification',
  'passkey.attachment_preference',
] as const satisfies readonly OptionKey[];

/** Outgoing mail: password-reset and verification mails carry sign-in codes. */
export const MAIL_OPTION_KEYS = [
  'SMTPServer',
  'SMTPPort',
  'SMTPAccount',
  'SMTPFrom',
  'SMTPSSLEnabled',
] as const satisfies readonly OptionKey[];

/**
 * The server's own addresses and what it fetches: ServerAddress builds reset and OAuth links, the proxy settings
 * decide which client address is trusted, the SSRF guard and disk cache reach the server's network and disk.
 */
export const SERVER_OPTION_KEYS = [
  'ServerAddress',
  'WorkerUrl',
  'CustomCallbackAddress',
  'ReverseProxyEnabled',
  'ReverseProxyProvider',
  'WorkerAllowHttpImageRequestEnabled',
  'fetch_setting.enable_ssrf_protection',
  'fetch_setting.allow_private_ip',
  'fetch_setting.domain_filter_mode',
  'fetch_setting.ip_filter_mode',
  'fetch_setting.domain_list',
  'fetch_setting.ip_list',
  'fetch_setting.allowed_ports',
  'fetch_setting.apply_ip_filter_for_domain',
  'performance_setting.disk_cache_enabled',
  'performance_setting.disk_cache_threshold_mb',
  'performance_setting.disk_cache_max_size_mb',
  'performance_setting.disk_cache_path',
] as const satisfies readonly OptionKey[];

/** Payment providers: where money goes and the callbacks that credit quota. */
export const PAYMENT_OPTION_KEYS = [
  'PayAddress',
  'EpayId',
  'Price',
  'MinTopUp',
  'TopupGroupRatio',
  'payment_setting.amount_options',
  'payment_setting.amount_discount',
  'payment_setting.compliance_confirmed',
  'payment_setting.compliance_terms_version',
  'payment_setting.compliance_confirmed_at',
  'payment_setting.compliance_confirmed_by',
  'payment_setting.compliance_confirmed_ip',
  'PayMethods',
  'StripePriceId',
  'StripeUnitPrice',
  'StripeMinTopUp',
  'StripePromotionCodesEnabled',
  'CreemProducts',
  'CreemTestMode',
  'WaffoEnabled',
  'WaffoPublicCert',
  'WaffoSandboxPublicCert',
  'WaffoSandbox',
  'WaffoMerchantId',
  'WaffoNotifyUrl',
  'WaffoReturnUrl',
  'WaffoCurrency',
  'WaffoUnitPrice',
  'WaffoMinTopUp',
  'WaffoPayMethods',
  'AllScaleEnabled',
  'AllScaleBaseURL',
  'AllScaleUnitPrice',
] as const satisfies readonly OptionKey[];

/**
 * Text the console renders as HTML (or injects raw: head HTML, CSS, JavaScript) on pages root also opens: an
 * administrator's markup must not run in root's session.
 */
export const HTML_OPTION_KEYS = [
  'Notice',
  'Footer',
  'About',
  'HomePageContent',
  'custom_head_html',
  'global_css',
  'global_js',
  'legal.user_agreement',
  'legal.privacy_policy',
] as const satisfies readonly OptionKey[];

/**
 * Links the console fills with the viewer's own API key (`{key}` in a chat link): set by an administrator, one would
 * send root's key to an address of the administrator's choosing.
 */
export const KEY_LINK_OPTION_KEYS = ['ChatLink', 'ChatLink2', 'Chats'] as const satisfies readonly OptionKey[];

/** Every root-only option, credentials included. */
export const ROOT_ONLY_OPTION_KEYS: ReadonlySet<OptionKey> = new Set<OptionKey>([
  ...SECRET_OPTION_KEYS,
  ...SIGN_IN_OPTION_KEYS,
  ...MAIL_OPTION_KEYS,
  ...SERVER_OPTION_KEYS,
  ...PAYMENT_OPTION_KEYS,
  ...HTML_OPTION_KEYS,
  ...KEY_LINK_OPTION_KEYS,
]);

/** The operation settings administrators read and write: every other option is root-only. */
export const OPERATION_OPTION_KEYS = [
  // Presentation that is not HTML, and links
  'SystemName',
  'Logo',
  'TopUpLink',
  'general_setting.docs_link',
  'HeaderNavModules',
  'SidebarModulesAdmin',
  'console_setting.api_info',
  'console_setting.announcements',
  'console_setting.faq',
  'console_setting.uptime_kuma_groups',
  'console_setting.api_info_enabled',
  'console_setting.announcements_enabled',
  'console_setting.faq_enabled',
  'console_setting.uptime_kuma_enabled',
  // General and display
  'QuotaPerUnit',
  'RetryTimes',
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'DefaultCollapseSidebar',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
  'general_setting.quota_display_type',
  'USDExchangeRate',
  'general_setting.custom_currency_symbol',
  'general_setting.custom_currency_exchange_rate',
  'general_setting.log_filter_autocomplete_enabled',
  'general_setting.ping_interval_enabled',
  'general_setting.ping_interval_seconds',
  'token_setting.max_user_tokens',
  // Drawing and tasks
  'DrawingEnabled',
  'TaskEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjForwardUrlEnabled',
  'MjModeClearEnabled',
  'MjActionCheckSuccessEnabled',
  // Sensitive content
  'CheckSensitiveEnabled',
  'CheckSensitiveOnPromptEnabled',
  'SensitiveWords',
  'StopOnSensitiveEnabled',
  'StreamCacheQueueLength',
  // Logs and the dashboard
  'LogConsumeEnabled',
  'LogChatContentEnabled',
  'LogErrorEnabled',
  'LogRetentionDays',
  'DataExportEnabled',
  'DataExportInterval',
  'DataExportDefaultTime',
  // Channel control and monitoring
  'ChannelDisableThreshold',
  'QuotaRemindThreshold',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'AutomaticDisableKeywords',
  'AutomaticDisableStatusCodes',
  'AutomaticRetryStatusCodes',
  'ChannelBreakerEnabled',
  'ChannelBreakerWindowSeconds',
  'ChannelBreakerMinFailures',
  'ChannelBreakerErrorRate',
  'ChannelBreakerCooldownSeconds',
  'ChannelBreakerMaxCooldownSeconds',
  'RoutingStrategy',
  'monitor_setting.auto_test_channel_enabled',
  'monitor_setting.auto_test_channel_minutes',
  'OrganizationCreateByUsers',
  'mcp_setting.group_tools',
  'mcp_setting.responses_tools_enabled',
  // Check-in, quota, invite and rebate
  'CheckInEnabled',
  'CheckInQuota',
  'CheckInMaxQuota',
  'QuotaForNewUser',
  'PreConsumedQuota',
  'QuotaForInviter',
  'QuotaForInvitee',
  'AffEnabled',
  'RebateEnabled',
  'RebatePercentage',
  'quota_setting.enable_free_model_pre_consume',
  // Pricing and groups
  'ModelPrice',
  'ModelRatio',
  'CompletionRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'ImageRatio',
  'AudioRatio',
  'AudioCompletionRatio',
  'GroupRatio',
  'GroupGroupRatio',
  'UserUsableGroups',
  'group_ratio_setting.group_special_usable_group',
  'AutoGroups',
  'DefaultUseAutoGroup',
  'ExposeRatioEnabled',
  'fallback_pricing_enabled',
  'fallback_single_price',
  'fallback_input_ratio',
  'fallback_completion_ratio',
  'redirect_billing_enabled',
  'billing_setting.billing_mode',
  'billing_setting.billing_expr',
  'tool_price_setting.prices',
  // Rate limits
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
  'ModelRequestRateLimitDurationMinutes',
  'ModelRequestRateLimitGroup',
  'GroupRateLimits',
  'TokenConcurrencyLimit',
  'UserConcurrencyLimit',
  // Model providers and relay behaviour
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
  'gemini.thinking_adapter_enabled',
  'gemini.thinking_adapter_budget_tokens_percentage',
  'gemini.models_supported_thinking_budget',
  'gemini.remove_function_response_id_enabled',
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'claude.thinking_adapter_enabled',
  'claude.thinking_adapter_budget_tokens_percentage',
  'grok.violation_deduction_enabled',
  'grok.violation_deduction_amount',
  'global.pass_through_request_enabled',
  'global.hide_upstream_error_enabled',
  'global.block_browser_extension_enabled',
  'global.rate_limit_exempt_enabled',
  'global.rate_limit_exempt_group',
  'global.safe_check_exempt_enabled',
  'global.safe_check_exempt_group',
  'global.auto_retry_enabled',
  'global.auto_retry_count',
  'global.auto_retry_force_channel_switch',
  'global.auto_retry_status_codes',
  'ModelFallbacks',
  'global.thinking_model_blacklist',
  'global.chat_completions_to_responses_policy',
  // Channel affinity (routing of a session to the channel and key that served it)
  'channel_affinity_setting.enabled',
  'channel_affinity_setting.switch_on_success',
  'channel_affinity_setting.keep_on_channel_disabled',
  'channel_affinity_setting.max_entries',
  'channel_affinity_setting.default_ttl_seconds',
  'channel_affinity_setting.rules',
  // Response cache (docs/operating/response-cache.md)
  ...RESPONSE_CACHE_OPTION_KEYS,
] as const satisfies readonly OptionKey[];

const OPERATION_SET: ReadonlySet<OptionKey> = new Set<OptionKey>(OPERATION_OPTION_KEYS);

/**
 * The level that may read and write `key` (an option or new-api alias name); undefined for a key that names no
 * option or is in no group. A key in both groups is root-only (a secret always is).
 */
export function optionAccess(key: string): OptionAccess | undefined {
  const stored = resolveOptionKey(key);
  if (stored === undefined) return undefined;
  if (ROOT_ONLY_OPTION_KEYS.has(stored)) return 'root';
  return OPERATION_SET.has(stored) ? 'admin' : undefined;
}

/** Whether a caller of `role` may read and write `key`: root every option, an administrator the operation ones. */
export function canAccessOption(role: number | undefined, key: string): boolean {
  if (isRoot(role)) return true;
  return isAdmin(role) && optionAccess(key) === 'admin';
}
