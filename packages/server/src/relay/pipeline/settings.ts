import { costCurrency, quotaDisplayType, type CostCurrency, type ModelFallbacks } from '@tollway/shared';
import type { ConcurrencyLimits } from '../limits/concurrency.js';
import type { OptionsService } from '../../core/options/service.js';
import { pingIntervalMs } from './keep-alive.js';
import { retryPolicy, type RetryPolicy } from './retry-policy.js';

/**
 * The options a relay call reads, parsed once per change of any option instead of on every call (one object,
 * rebuilt on the first call after a change).
 */
export interface RelaySettings {
  quotaPerUnit: number;
  /** Reserved for a ratio-priced call without a token limit (PreConsumedQuota). */
  preConsumedQuota: number;
  /** Consume logs are written (LogConsumeEnabled). */
  logConsume: boolean;
  /** A mapped call is billed at the model used when that is priced (redirect_billing_enabled). */
  redirectBilling: boolean;
  /** The prompt and answer text go to the consume log (LogChatContentEnabled, and consume logs on). */
  logContent: boolean;
  retry: RetryPolicy;
  /** Callers see a generic message instead of the upstream's (global.hide_upstream_error_enabled). */
  hideUpstreamError: boolean;
  /** Keep-alive interval of streamed answers in ms; 0: none. */
  pingMs: number;
  /** Prompts are checked for SensitiveWords (CheckSensitiveEnabled and CheckSensitiveOnPromptEnabled). */
  checkPrompt: boolean;
  /** The group whose calls are not checked (global.safe_check_exempt_*); undefined: none. */
  exemptGroup: string | undefined;
  /** The currency of the cost receipt's X-Tollway-Cost: the console's display currency (USD when it shows tokens). */
  costCurrency: CostCurrency;
  /** Calls in flight per token and per user (TokenConcurrencyLimit, UserConcurrencyLimit; 0: none). */
  concurrency: ConcurrencyLimits;
  /** Model → its fallback models in order (ModelFallbacks). */
  fallbacks: ModelFallbacks;
}

function readSettings(o: OptionsService): RelaySettings {
  return {
    quotaPerUnit: o.num('QuotaPerUnit'),
    preConsumedQuota: o.num('PreConsumedQuota'),
    logConsume: o.bool('LogConsumeEnabled'),
    redirectBilling: o.bool('redirect_billing_enabled'),
    logContent: o.bool('LogChatContentEnabled') && o.bool('LogConsumeEnabled'),
    retry: retryPolicy(o),
    hideUpstreamError: o.bool('global.hide_upstream_error_enabled'),
    pingMs: pingIntervalMs(o),
    checkPrompt: o.bool('CheckSensitiveEnabled') && o.bool('CheckSensitiveOnPromptEnabled'),
    exemptGroup: o.bool('global.safe_check_exempt_enabled') ? o.get('global.safe_check_exempt_group') : undefined,
    costCurrency: costCurrency(
      quotaDisplayType(o.bool('DisplayInCurrencyEnabled'), o.get('general_setting.quota_display_type')),
      o.num('USDExchangeRate'),
      o.get('general_setting.custom_currency_symbol'),
      o.num('general_setting.custom_currency_exchange_rate'),
    ),
    concurrency: { token: o.num('TokenConcurrencyLimit'), user: o.num('UserConcurrencyLimit') },
    fallbacks: o.json<ModelFallbacks>('ModelFallbacks'),
  };
}

/** The current RelaySettings: dropped when an option changes, read again on the next call. */
export class RelaySettingsCache {
  private current: RelaySettings | undefined;

  constructor(private readonly options: OptionsService) {
    options.onChange(() => {
      this.current = undefined;
    });
  }

  get(): RelaySettings {
    return (this.current ??= readSettings(this.options));
  }
}
