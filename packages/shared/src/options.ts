import { z } from 'zod';
import { defaultCacheRatio, defaultCompletionRatio, defaultModelPrice, defaultModelRatio } from './default-pricing.js';
import { parseSensitiveWords } from './sensitive-words.js';
import { groupRateLimits } from './rate-limits.js';
import { CONCURRENCY_LIMIT_MAX, modelFallbacks } from './model-fallbacks.js';
import { mcpGroupTools } from './schemas/mcp-server.js';
import { DEFAULT_FETCH_PORTS, fetchDomainList, fetchIpList, fetchPortList } from './fetch-settings.js';

import { newApiOptionDefs } from './options-newapi.js';
import { affinityOptionDefs } from './channel-affinity.js';
import { responseCacheOptionDefs } from './response-cache.js';
import { routingStrategyOptionDefs } from './routing-strategy.js';
import { ldapUrlProblem, ldapUserFilterProblem } from './ldap-options.js';
import { ErrorCode, type ErrorParams } from './error-codes.js';
import { inputRefusal } from './input-rules.js';
import { billingExprMap } from './billing-expr/option.js';
import { bool, checked, float, int, json, oneOf, secret, str, type OptionDef } from './option-def.js';

export type { OptionCheckFailure, OptionDef, OptionKind } from './option-def.js';
export { QUOTA_DISPLAY_TYPES, quotaDisplayType, statusCodeRulesError } from './options-newapi.js';

const numberMap = z.record(z.string(), z.number().nonnegative());
const stringMap = z.record(z.string(), z.string());
const stringList = z.array(z.string());
const chatList = z.array(z.record(z.string(), z.string()));

export const optionDefs = {
  // Login and registration
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  RegisterEnabled: bool(true),
  // Code-hosting sign-in
  GitHubOAuthEnabled: bool(false),
  GitHubClientId: str(),
  GitHubClientSecret: secret(),
  // OIDC
  'oidc.enabled': bool(false),
  'oidc.client_id': str(),
  'oidc.client_secret': secret(),
  'oidc.well_known': str(),
  'oidc.authorization_endpoint': str(),
  'oidc.token_endpoint': str(),
  'oidc.user_info_endpoint': str(),
  // QR login server
  WeChatAuthEnabled: bool(false),
  WeChatServerAddress: str(),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: str(),
  // Messaging bot
  TelegramOAuthEnabled: bool(false),
  TelegramBotToken: secret(),
  TelegramBotName: str(),
  // Forum sign-in
  LinuxDOOAuthEnabled: bool(false),
  LinuxDOClientId: str(),
  LinuxDOClientSecret: secret(),
  LinuxDOMinimumTrustLevel: int(0, 0, 4),
  // Directory sign-in (LDAP / Active Directory); see docs/operating/ldap.md
  LDAPEnabled: bool(false),
  LDAPServerURL: checked('', ldapUrlProblem),
  LDAPStartTLS: bool(false),
  LDAPTLSCACert: str(),
  LDAPTLSSkipVerify: bool(false),
  LDAPTimeoutSeconds: int(10, 1, 120),
  LDAPBindDN: str(),
  LDAPBindPassword: secret(),
  LDAPBaseDN: str(),
  LDAPUserFilter: checked('(uid={username})', ldapUserFilterProblem),
  LDAPUsernameAttribute: str('uid'),
  LDAPEmailAttribute: str('mail'),
  LDAPDisplayNameAttribute: str('cn'),
  LDAPGroupAttribute: str('memberOf'),
  LDAPGroupSearchBaseDN: str(),
  LDAPGroupSearchFilter: str('(member={dn})'),
  LDAPGroupMapping: json({}, stringMap),
  // Directory group → role: an ordinary user or an administrator (never root), by name or number
  LDAPRoleMapping: json(
    {},
    z.record(z.string(), z.enum(['common', 'user', 'member', '1', 'admin', 'administrator', '10'])),
  ),
  LDAPGroupRequired: bool(false),
  LDAPAutoRegister: bool(true),
  LDAPDisabledFilter: str(),
  LDAPRevalidateSeconds: int(600, 30, 86400),
  LDAPDisableRemovedUsers: bool(false),
  // Two-factor sign-in: administrators (and root) without it may only set it up
  TwoFactorRequiredForAdmins: bool(false),
  // Bot check
  TurnstileCheckEnabled: bool(false),
  TurnstileSiteKey: str(),
  TurnstileSecretKey: secret(),
  // Mail
  SMTPServer: str(),
  SMTPPort: int(587, 1, 65535),
  SMTPAccount: str(),
  SMTPFrom: str(),
  SMTPToken: secret(),
  SMTPSSLEnabled: bool(false),
  // Email restriction
  EmailDomainRestrictionEnabled: bool(false),
  EmailAliasRestrictionEnabled: bool(false),
  EmailDomainWhitelist: str(
    'gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com',
  ),
  // Addresses and proxy
  ServerAddress: str(),
  WorkerUrl: str(),
  WorkerValidKey: secret(),
  CustomCallbackAddress: str(),
  ReverseProxyEnabled: bool(false),
  ReverseProxyProvider: oneOf('nginx', ['nginx', 'cloudflare']),
  // Payment
  PayAddress: str(),
  EpayId: str(),
  EpayKey: secret(),
  Price: float(7.3, 0),
  MinTopUp: int(1, 0),
  TopupGroupRatio: json({ default: 1, vip: 1, svip: 1 }, numberMap),
  // Presentation
  Notice: str(),
  SystemName: str('Tollway'),
  Logo: str(),
  Footer: str(),
  About: str(),
  HomePageContent: str(),
  custom_head_html: str(),
  global_css: str(),
  global_js: str(),
  TopUpLink: str(),
  ChatLink: str(),
  ChatLink2: str(),
  'general_setting.docs_link': str(),
  // General
  QuotaPerUnit: float(500000, 1),
  RetryTimes: int(0, 0, 10),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  DefaultCollapseSidebar: bool(false),
  DemoSiteEnabled: bool(false),
  SelfUseModeEnabled: bool(false),
  // Drawing and tasks
  DrawingEnabled: bool(false),
  TaskEnabled: bool(false),
  MjNotifyEnabled: bool(false),
  MjAccountFilterEnabled: bool(false),
  MjForwardUrlEnabled: bool(true),
  MjModeClearEnabled: bool(false),
  MjActionCheckSuccessEnabled: bool(true),
  // Sensitive content
  CheckSensitiveEnabled: bool(false),
  CheckSensitiveOnPromptEnabled: bool(false),
  SensitiveWords: checked('', (text) => parseSensitiveWords(text).error),
  StreamCacheQueueLength: int(0, 0),
  // Logs and export
  LogConsumeEnabled: bool(true),
  LogChatContentEnabled: bool(false),
  LogErrorEnabled: bool(true),
  /** Days usage logs are kept (older ones are deleted in the background by the master node); 0 keeps them forever. */
  LogRetentionDays: int(0, 0, 36500),
  DataExportEnabled: bool(true),
  DataExportInterval: int(5, 1),
  DataExportDefaultTime: oneOf('hour', ['hour', 'day', 'week']),
  // Channel control
  ChannelDisableThreshold: float(5, 0),
  QuotaRemindThreshold: int(1000, 0),
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  AutomaticDisableKeywords: str(
    'Your credit balance is too low\nThis organization has been disabled.\nYou exceeded your current quota\nPermission denied\nThe security token included in the request is invalid\nOperation not allowed\nYour account is not authorized',
  ),
  // Channel circuit breakers (see docs/operating/channel-health.md)
  ChannelBreakerEnabled: bool(true),
  ChannelBreakerWindowSeconds: int(60, 5, 3600),
  ChannelBreakerMinFailures: int(5, 1),
  ChannelBreakerErrorRate: float(0.5, 0, 1),
  ChannelBreakerCooldownSeconds: int(30, 1, 86400),
  ChannelBreakerMaxCooldownSeconds: int(600, 1, 86400),
  // Organizations (docs/operating/organizations.md): whether people who are not administrators may create one
  OrganizationCreateByUsers: bool(true),
  // Check-in
  CheckInEnabled: bool(false),
  CheckInQuota: int(0, 0),
  CheckInMaxQuota: int(0, 0),
  // Quota and invite
  QuotaForNewUser: int(0, 0),
  PreConsumedQuota: int(500, 0),
  QuotaForInviter: int(0, 0),
  QuotaForInvitee: int(0, 0),
  AffEnabled: bool(false),
  // Rebate
  RebateEnabled: bool(false),
  RebatePercentage: float(0, 0, 100),
  // Pricing
  ModelPrice: json(defaultModelPrice, numberMap),
  ModelRatio: json(defaultModelRatio, numberMap),
  CompletionRatio: json(defaultCompletionRatio, numberMap),
  CacheRatio: json(defaultCacheRatio, numberMap),
  GroupRatio: json({ default: 1, vip: 1, svip: 1 }, numberMap),
  UserUsableGroups: json({ default: 'default', vip: 'vip' }, stringMap),
  Chats: json([], chatList),
  fallback_pricing_enabled: bool(false),
  fallback_single_price: float(0, 0),
  fallback_input_ratio: float(0, 0),
  fallback_completion_ratio: float(0, 0),
  redirect_billing_enabled: bool(false),
  // new-api's expression billing: per model 'ratio' (the tables above) or 'tiered_expr' (the expression below)
  'billing_setting.billing_mode': json({}, z.record(z.string(), z.enum(['ratio', 'tiered_expr']))),
  'billing_setting.billing_expr': json({}, billingExprMap),
  // Tool calls in dollars per 1,000 calls: "web_search", or "web_search_preview:gpt-4o*" for models by prefix
  'tool_price_setting.prices': json({}, numberMap),
  // Model request rate limit
  ModelRequestRateLimitEnabled: bool(false),
  ModelRequestRateLimitCount: int(0, 0),
  ModelRequestRateLimitSuccessCount: int(1000, 1),
  ModelRequestRateLimitDurationMinutes: int(1, 0),
  // Requests and tokens per minute of a whole group: {"vip": {"rpm": 600, "tpm": 200000}}
  GroupRateLimits: json({}, groupRateLimits),
  // Calls in flight at once per API token and per user (0: no limit); see docs/operating/fallbacks-and-concurrency.md
  TokenConcurrencyLimit: int(0, 0, CONCURRENCY_LIMIT_MAX),
  UserConcurrencyLimit: int(0, 0, CONCURRENCY_LIMIT_MAX),
  // Models a call moves to when its model's channels are exhausted: {"gpt-4o": ["gpt-4o-mini"]}
  ModelFallbacks: json({}, modelFallbacks),
  // Gemini
  'gemini.safety_settings': json({ default: 'OFF' }, stringMap),
  'gemini.version_settings': json({ default: 'v1beta' }, stringMap),
  'gemini.supported_imagine_models': json(['gemini-2.0-flash-exp-image-generation'], stringList),
  'gemini.thinking_adapter_enabled': bool(false),
  'gemini.thinking_adapter_budget_tokens_percentage': float(0.6, 0.002, 1),
  'gemini.models_supported_thinking_budget': json(['gemini-2.5-flash', 'gemini-2.5-pro'], stringList),
  // Claude
  'claude.model_headers_settings': json({}, z.record(z.string(), z.record(z.string(), z.array(z.string())))),
  'claude.default_max_tokens': json({ default: 8192 }, numberMap),
  'claude.thinking_adapter_enabled': bool(true),
  'claude.thinking_adapter_budget_tokens_percentage': float(0.8, 0.1, 1),
  // Global relay behaviour
  'global.pass_through_request_enabled': bool(false),
  'global.hide_upstream_error_enabled': bool(false),
  'global.block_browser_extension_enabled': bool(false),
  'global.rate_limit_exempt_enabled': bool(false),
  'global.rate_limit_exempt_group': str('bulk-ok'),
  'global.safe_check_exempt_enabled': bool(false),
  'global.safe_check_exempt_group': str('nsfw-ok'),
  'global.auto_retry_enabled': bool(false),
  'global.auto_retry_count': int(3, 1, 10),
  'global.auto_retry_force_channel_switch': bool(false),
  'global.auto_retry_status_codes': str('5xx,4xx'),
  'general_setting.ping_interval_enabled': bool(false),
  'general_setting.ping_interval_seconds': int(60, 1),
  // Outbound requests the server makes for users (webhooks): the SSRF guard
  'fetch_setting.enable_ssrf_protection': bool(true),
  'fetch_setting.allow_private_ip': bool(false),
  'fetch_setting.domain_filter_mode': bool(false),
  'fetch_setting.ip_filter_mode': bool(false),
  'fetch_setting.domain_list': json([], fetchDomainList),
  'fetch_setting.ip_list': json([], fetchIpList),
  'fetch_setting.allowed_ports': json(DEFAULT_FETCH_PORTS, fetchPortList),
  'fetch_setting.apply_ip_filter_for_domain': bool(true),
  // The MCP gateway: tools each user group may use (`<server>__<tool>` patterns; docs/operating/mcp.md)
  'mcp_setting.group_tools': json({}, mcpGroupTools),
  // The Responses API's remote `mcp` tools run against registered MCP servers (docs/operating/mcp.md); off: passed through
  'mcp_setting.responses_tools_enabled': bool(false),
  ...newApiOptionDefs,
  ...affinityOptionDefs,
  ...responseCacheOptionDefs,
  ...routingStrategyOptionDefs,
} satisfies Record<string, OptionDef>;

export type OptionKey = keyof typeof optionDefs;
export const optionKeys = Object.keys(optionDefs) as OptionKey[];

export function isOptionKey(key: string): key is OptionKey {
  return Object.prototype.hasOwnProperty.call(optionDefs, key);
}

/** new-api's names for options Tollway keeps under its own name: both are accepted; one value is stored. */
export const optionAliases = {
  'checkin_setting.enabled': 'CheckInEnabled',
  'checkin_setting.min_quota': 'CheckInQuota',
  'checkin_setting.max_quota': 'CheckInMaxQuota',
} as const satisfies Record<string, OptionKey>;
export type OptionAlias = keyof typeof optionAliases;
export const optionAliasKeys = Object.keys(optionAliases) as OptionAlias[];

/** The stored key for `key` (an option key or an alias), or undefined when it names no option. */
export function resolveOptionKey(key: string): OptionKey | undefined {
  if (isOptionKey(key)) return key;
  return Object.prototype.hasOwnProperty.call(optionAliases, key) ? optionAliases[key as OptionAlias] : undefined;
}

/**
 * Options kept in step with another: DisplayInCurrencyEnabled and new-api's quota display type. Given a key just
 * set to `value` and a reader of current values, returns the other keys to store.
 */
export function linkedOptionUpdates(
  key: OptionKey,
  value: string,
  current: (k: OptionKey) => string,
): [OptionKey, string][] {
  const typeKey = 'general_setting.quota_display_type';
  if (key === 'DisplayInCurrencyEnabled') {
    const type = current(typeKey);
    const next = value === 'false' ? 'TOKENS' : type === 'TOKENS' ? 'USD' : type;
    return next === type ? [] : [[typeKey, next]];
  }
  if (key === typeKey) {
    const inCurrency = String(value !== 'TOKENS');
    return current('DisplayInCurrencyEnabled') === inCurrency ? [] : [['DisplayInCurrencyEnabled', inCurrency]];
  }
  return [];
}

/**
 * Settles values read from storage: a row under an alias name (written by an import) counts for its option unless
 * the option has a row of its own; the quota display type, when stored, decides DisplayInCurrencyEnabled (new-api
 * changes only the type), else follows it.
 */
export function settleStoredOptions(values: Record<OptionKey, string>, rows: { key: string; value: string }[]): void {
  const stored = new Set(rows.map((r) => r.key));
  for (const r of rows) {
    const target = resolveOptionKey(r.key);
    if (target && target !== r.key && !stored.has(target)) values[target] = r.value;
  }
  const typeKey = 'general_setting.quota_display_type';
  if (stored.has(typeKey)) values.DisplayInCurrencyEnabled = String(values[typeKey] !== 'TOKENS');
  else if (values.DisplayInCurrencyEnabled === 'false') values[typeKey] = 'TOKENS';
}

/** A refused option value: the English message naming the key, and the code and values of the console's text. */
export interface OptionRefusal {
  ok: false;
  message: string;
  code: ErrorCode;
  params: ErrorParams;
}

const refusal = (message: string, code: ErrorCode, params: ErrorParams): OptionRefusal => ({
  ok: false,
  message,
  code,
  params,
});

/** An option value as text: a string as is, an object as JSON, null/undefined as ''. */
export const optionText = (raw: unknown): string =>
  typeof raw === 'string'
    ? raw
    : raw === null || raw === undefined
      ? ''
      : typeof raw === 'object'
        ? JSON.stringify(raw)
        : String(raw);

/**
 * Validates and normalises an option value given as text (or a primitive from JSON).
 * Returns the text to store, or a refusal naming the key.
 */
export function normalizeOptionValue(key: string, raw: unknown): { ok: true; value: string } | OptionRefusal {
  const stored = resolveOptionKey(key);
  if (stored === undefined) return refusal(`unknown option: ${key}`, ErrorCode.OptionUnknown, { key });
  const def: OptionDef = optionDefs[stored];
  const text = optionText(raw);
  switch (def.kind) {
    case 'bool':
      if (text !== 'true' && text !== 'false')
        return refusal(`${key} must be true or false`, ErrorCode.OptionNotBool, { key });
      return { ok: true, value: text };
    case 'int':
    case 'float': {
      const trimmed = text.trim();
      const n = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(n))
        return refusal(`${key} must be a number`, ErrorCode.OptionNotNumber, { key });
      if (def.kind === 'int' && !Number.isInteger(n))
        return refusal(`${key} must be an integer`, ErrorCode.OptionNotInteger, { key });
      if (def.min !== undefined && n < def.min)
        return refusal(`${key} must be at least ${def.min}`, ErrorCode.OptionTooSmall, { key, min: def.min });
      if (def.max !== undefined && n > def.max)
        return refusal(`${key} must be at most ${def.max}`, ErrorCode.OptionTooLarge, { key, max: def.max });
      return { ok: true, value: String(n) };
    }
    case 'enum': {
      const values = def.values!.join(', ');
      if (!def.values!.includes(text))
        return refusal(`${key} must be one of ${values}`, ErrorCode.OptionNotInList, { key, values });
      return { ok: true, value: text };
    }
    case 'json': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return refusal(`${key} is not a valid JSON string`, ErrorCode.OptionNotJson, { key });
      }
      const res = def.json!.safeParse(parsed);
      if (!res.success) {
        // The value's own rule, coded as an input check of the field the issue names (GroupRatio.vip).
        const issue = res.error.issues[0]!;
        const { code, params } = inputRefusal(issue, [key, ...issue.path.map(String)].join('.'));
        return refusal(`${key}: ${issue.message}`, code, { key, ...params });
      }
      return { ok: true, value: text };
    }
    default: {
      const failed = def.check?.(text);
      if (!failed) return { ok: true, value: text };
      return refusal(failed.message.startsWith(key) ? failed.message : `${key} ${failed.message}`, failed.code, {
        ...failed.params,
        key,
      });
    }
  }
}

/**
 * Rules only a new write follows (a stored or imported value stays readable): a ModelPrice entry must be a
 * finite number above 0, as the console's price dialog requires (0 would make the model free).
 */
export function optionWriteRefusal(key: string, raw: unknown): OptionRefusal | undefined {
  if (resolveOptionKey(key) !== 'ModelPrice') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(optionText(raw));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  for (const [model, price] of Object.entries(parsed)) {
    if (typeof price === 'number' && !(Number.isFinite(price) && price > 0)) {
      return refusal(`${key}: the price of "${model}" must be greater than 0`, ErrorCode.ModelPriceNotPositive, {
        model,
      });
    }
  }
  return undefined;
}

export function defaultOptionValues(): Record<OptionKey, string> {
  const out = {} as Record<OptionKey, string>;
  for (const k of optionKeys) out[k] = optionDefs[k].default;
  return out;
}
