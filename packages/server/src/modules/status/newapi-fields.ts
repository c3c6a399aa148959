import { quotaDisplayType } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';

type PanelList = Record<string, unknown>[];

/**
 * Fields of /api/status that new-api's console reads and Tollway's does not: display currency, dashboard panels
 * (content only while the panel is on), menu layouts, legal-text flags, and sign-in methods Tollway lacks (off).
 */
export function newApiStatusFields(o: OptionsService) {
  const panels = {
    api_info_enabled: o.bool('console_setting.api_info_enabled'),
    uptime_kuma_enabled: o.bool('console_setting.uptime_kuma_enabled'),
    announcements_enabled: o.bool('console_setting.announcements_enabled'),
    faq_enabled: o.bool('console_setting.faq_enabled'),
  };
  return {
    quota_display_type: quotaDisplayType(
      o.bool('DisplayInCurrencyEnabled'),
      o.get('general_setting.quota_display_type'),
    ),
    usd_exchange_rate: o.num('USDExchangeRate'),
    custom_currency_symbol: o.get('general_setting.custom_currency_symbol'),
    custom_currency_exchange_rate: o.num('general_setting.custom_currency_exchange_rate'),
    stripe_unit_price: o.num('StripeUnitPrice'),
    ...panels,
    ...(panels.api_info_enabled ? { api_info: o.json<PanelList>('console_setting.api_info') } : {}),
    ...(panels.announcements_enabled ? { announcements: o.json<PanelList>('console_setting.announcements') } : {}),
    ...(panels.faq_enabled ? { faq: o.json<PanelList>('console_setting.faq') } : {}),
    HeaderNavModules: o.get('HeaderNavModules'),
    SidebarModulesAdmin: o.get('SidebarModulesAdmin'),
    user_agreement_enabled: o.get('legal.user_agreement') !== '',
    privacy_policy_enabled: o.get('legal.privacy_policy') !== '',
    checkin_enabled: o.bool('CheckInEnabled'),
    linuxdo_minimum_trust_level: o.num('LinuxDOMinimumTrustLevel'),
    log_filter_autocomplete_enabled: o.bool('general_setting.log_filter_autocomplete_enabled'),
    // Passkeys (modules/passkeys): new-api's console shows its button while passkey_login is on.
    passkey_login: o.bool('passkey.enabled'),
    passkey_display_name: o.get('passkey.rp_display_name') || o.get('SystemName'),
    passkey_rp_id: o.get('passkey.rp_id'),
    passkey_origins: o.get('passkey.origins'),
    passkey_allow_insecure: o.bool('passkey.allow_insecure_origin'),
    passkey_user_verification: o.get('passkey.user_verification'),
    passkey_attachment: o.get('passkey.attachment_preference'),
    // Sign-in methods and grouping Tollway does not have: always off, whatever their stored options say.
    discord_oauth: false,
    discord_client_id: '',
    default_use_auto_group: false,
    enable_batch_update: false,
  };
}
