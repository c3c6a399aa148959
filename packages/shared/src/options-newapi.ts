import { z } from 'zod';
import { ErrorCode } from './error-codes.js';
import {
  bool,
  checked,
  float,
  int,
  json,
  oneOf,
  secret,
  str,
  type OptionCheckFailure,
  type OptionDef,
} from './option-def.js';

/**
 * Option keys new-api's console writes that Tollway had no name for. Those with an effect are read by
 * /api/status (display, dashboard panels, legal texts, menus) or kept in step with a Tollway option; the others
 * are stored and type-checked only, so an operator's settings survive a switch (docs/switching-from-new-api.md lists them and why).
 */

const numberMap = z.record(z.string(), z.number().nonnegative());
const stringList = z.array(z.string());
const objectList = z.array(z.record(z.string(), z.unknown()));
const HTTP_STATUS_MIN = 100;
const HTTP_STATUS_MAX = 599;

/** `401,403,500-599`: status codes and inclusive ranges, comma separated (blank: none). */
export function statusCodeRulesError(text: string): OptionCheckFailure | undefined {
  const inRange = (n: number) => Number.isInteger(n) && n >= HTTP_STATUS_MIN && n <= HTTP_STATUS_MAX;
  for (const raw of text.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const m = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(part);
    const lo = Number(m?.[1]);
    const hi = m?.[2] === undefined ? lo : Number(m[2]);
    if (!m || !inRange(lo) || !inRange(hi) || hi < lo) {
      return {
        message: `status code rule "${part}" must be a code or range between ${HTTP_STATUS_MIN} and ${HTTP_STATUS_MAX}`,
        code: ErrorCode.StatusCodeRuleInvalid,
        params: { rule: part, min: HTTP_STATUS_MIN, max: HTTP_STATUS_MAX },
      };
    }
  }
  return undefined;
}

/** Blank, or a JSON object (new-api's menu module layouts). */
function jsonObjectTextError(text: string): OptionCheckFailure | undefined {
  if (text.trim() === '') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? undefined
      : { message: 'must be a JSON object', code: ErrorCode.OptionNotJsonObject };
  } catch {
    return { message: 'is not a valid JSON string', code: ErrorCode.OptionNotJson };
  }
}

/** How quotas are shown: dollars, yuan at USDExchangeRate, raw tokens, or a custom currency. */
export const QUOTA_DISPLAY_TYPES = ['USD', 'CNY', 'TOKENS', 'CUSTOM'] as const;
const DEFAULT_USD_EXCHANGE_RATE = 7.3;
const DEFAULT_MAX_USER_TOKENS = 1000;
const DEFAULT_AUTO_TEST_MINUTES = 10;
const DEFAULT_STRIPE_UNIT_PRICE = 8;
const DEFAULT_GROK_DEDUCTION = 0.05;
const DEFAULT_DISK_CACHE_THRESHOLD_MB = 10;
const DEFAULT_DISK_CACHE_MAX_MB = 1024;

export const newApiOptionDefs = {
  // Display (read by /api/status; DisplayInCurrencyEnabled follows quota_display_type)
  'general_setting.quota_display_type': oneOf('USD', QUOTA_DISPLAY_TYPES),
  USDExchangeRate: float(DEFAULT_USD_EXCHANGE_RATE, 0),
  'general_setting.custom_currency_symbol': str('¤'),
  'general_setting.custom_currency_exchange_rate': float(1, 0),
  HeaderNavModules: checked('', jsonObjectTextError),
  SidebarModulesAdmin: checked('', jsonObjectTextError),
  // Dashboard panels (flags and content in /api/status)
  'console_setting.api_info': json([], objectList),
  'console_setting.announcements': json([], objectList),
  'console_setting.faq': json([], objectList),
  'console_setting.uptime_kuma_groups': json([], objectList),
  'console_setting.api_info_enabled': bool(false),
  'console_setting.announcements_enabled': bool(false),
  'console_setting.faq_enabled': bool(false),
  'console_setting.uptime_kuma_enabled': bool(false),
  // Legal texts (served by /api/user-agreement and /api/privacy-policy; flags in /api/status)
  'legal.user_agreement': str(),
  'legal.privacy_policy': str(),
  // Stored only: sign-in methods Tollway does not have
  'discord.enabled': bool(false),
  'discord.client_id': str(),
  'discord.client_secret': secret(),
  'passkey.enabled': bool(false),
  'passkey.rp_display_name': str(),
  'passkey.rp_id': str(),
  'passkey.origins': str(),
  'passkey.allow_insecure_origin': bool(false),
  'passkey.user_verification': oneOf('preferred', ['required', 'preferred', 'discouraged']),
  'passkey.attachment_preference': oneOf('', ['', 'platform', 'cross-platform']),
  WorkerAllowHttpImageRequestEnabled: bool(false),
  // Stored only: limits and behaviours Tollway does not have
  'token_setting.max_user_tokens': int(DEFAULT_MAX_USER_TOKENS, 1),
  'quota_setting.enable_free_model_pre_consume': bool(true),
  'general_setting.log_filter_autocomplete_enabled': bool(true),
  StopOnSensitiveEnabled: bool(true),
  AutomaticDisableStatusCodes: checked('401', statusCodeRulesError),
  AutomaticRetryStatusCodes: checked('100-199,300-399,401-407,409-499,500-503,505-523,525-599', statusCodeRulesError),
  'monitor_setting.auto_test_channel_enabled': bool(false),
  'monitor_setting.auto_test_channel_minutes': int(DEFAULT_AUTO_TEST_MINUTES, 1),
  ModelRequestRateLimitGroup: json(
    {},
    z.record(z.string(), z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
  ),
  // Stored only: new-api's disk cache of large request bodies (Tollway spools bodies its own way)
  'performance_setting.disk_cache_enabled': bool(false),
  'performance_setting.disk_cache_threshold_mb': int(DEFAULT_DISK_CACHE_THRESHOLD_MB, 1),
  'performance_setting.disk_cache_max_size_mb': int(DEFAULT_DISK_CACHE_MAX_MB, 1),
  'performance_setting.disk_cache_path': str(),
  // Stored only: ratio tables Tollway's billing does not read
  CreateCacheRatio: json({}, numberMap),
  ImageRatio: json({}, numberMap),
  AudioRatio: json({}, numberMap),
  AudioCompletionRatio: json({}, numberMap),
  GroupGroupRatio: json({}, z.record(z.string(), numberMap)),
  'group_ratio_setting.group_special_usable_group': json({}, z.record(z.string(), z.record(z.string(), z.string()))),
  AutoGroups: json([], stringList),
  DefaultUseAutoGroup: bool(false),
  // Read: GET /api/ratio_config answers the price tables only while it is on
  ExposeRatioEnabled: bool(false),
  // Stored only: model-specific switches
  'gemini.remove_function_response_id_enabled': bool(true),
  'global.thinking_model_blacklist': json([], stringList),
  'global.chat_completions_to_responses_policy': json({}, z.record(z.string(), z.unknown())),
  'grok.violation_deduction_enabled': bool(true),
  'grok.violation_deduction_amount': float(DEFAULT_GROK_DEDUCTION, 0),
  // Top-up amounts and discounts, Waffo, AllScale: stored only. Stripe and Creem: card payments (modules/topup)
  'payment_setting.amount_options': json([], z.array(z.number().positive())),
  'payment_setting.amount_discount': json({}, z.record(z.string(), z.number().positive())),
  // new-api's payment compliance acknowledgment (POST /api/option/payment_compliance): its console unlocks plans
  // and payment settings once confirmed; Tollway records it and gates nothing on it.
  'payment_setting.compliance_confirmed': bool(false),
  'payment_setting.compliance_terms_version': str(),
  'payment_setting.compliance_confirmed_at': int(0, 0),
  'payment_setting.compliance_confirmed_by': int(0, 0),
  'payment_setting.compliance_confirmed_ip': str(),
  PayMethods: json([], objectList),
  StripeApiSecret: secret(),
  StripeWebhookSecret: secret(),
  StripePriceId: str(),
  StripeUnitPrice: float(DEFAULT_STRIPE_UNIT_PRICE, 0),
  StripeMinTopUp: int(1, 0),
  StripePromotionCodesEnabled: bool(false),
  CreemApiKey: secret(),
  CreemProducts: json([], objectList),
  CreemTestMode: bool(false),
  CreemWebhookSecret: secret(),
  WaffoEnabled: bool(false),
  WaffoApiKey: secret(),
  WaffoPrivateKey: secret(),
  WaffoPublicCert: str(),
  WaffoSandboxPublicCert: str(),
  WaffoSandboxApiKey: secret(),
  WaffoSandboxPrivateKey: secret(),
  WaffoSandbox: bool(false),
  WaffoMerchantId: str(),
  WaffoNotifyUrl: str(),
  WaffoReturnUrl: str(),
  WaffoCurrency: str('USD'),
  WaffoUnitPrice: float(1, 0),
  WaffoMinTopUp: int(1, 0),
  WaffoPayMethods: json([], objectList),
  AllScaleEnabled: bool(false),
  AllScaleApiKey: secret(),
  AllScaleApiSecret: secret(),
  AllScaleBaseURL: str(),
  AllScaleUnitPrice: float(1, 0),
} satisfies Record<string, OptionDef>;

/** The display type /api/status reports: the stored type, with DisplayInCurrencyEnabled off meaning tokens. */
export function quotaDisplayType(displayInCurrency: boolean, storedType: string): string {
  if (!displayInCurrency) return 'TOKENS';
  return storedType === 'TOKENS' ? 'USD' : storedType;
}
