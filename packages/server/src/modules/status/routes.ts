import { ErrorCode } from '@tollway/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { refused } from '../../lib/errors.js';
import { checkReadiness, type ReadinessContext } from '../../observability/health.js';
import { newApiStatusFields } from './newapi-fields.js';
import { customOAuthProvidersOf } from '../custom-oauth/providers.js';

/** The public status payload (GET /api/status: site settings the console needs before login), built from options. */
export function statusPayload(ctx: AppContext) {
  const o = ctx.options;
  return {
    system_name: o.get('SystemName'),
    logo: o.get('Logo'),
    footer_html: o.get('Footer'),
    quota_per_unit: o.num('QuotaPerUnit'),
    display_in_currency: o.bool('DisplayInCurrencyEnabled'),
    display_token_stat: o.bool('DisplayTokenStatEnabled'),
    enable_drawing: o.bool('DrawingEnabled'),
    enable_task: o.bool('TaskEnabled'),
    enable_data_export: o.bool('DataExportEnabled'),
    chats: o.json<Record<string, string>[]>('Chats'),
    data_export_default_time: o.get('DataExportDefaultTime'),
    default_collapse_sidebar: o.bool('DefaultCollapseSidebar'),
    mj_notify_enabled: o.bool('MjNotifyEnabled'),
    chat_link: o.get('ChatLink'),
    chat_link2: o.get('ChatLink2'),
    docs_link: o.get('general_setting.docs_link'),
    top_up_link: o.get('TopUpLink'),
    version: ctx.config.version,
    start_time: Math.floor(ctx.startedAt / 1000),
    turnstile_check: o.bool('TurnstileCheckEnabled'),
    turnstile_site_key: o.get('TurnstileSiteKey'),
    aff_enabled: o.bool('AffEnabled'),
    email_verification: o.bool('EmailVerificationEnabled'),
    check_in_enabled: o.bool('CheckInEnabled'),
    github_oauth: o.bool('GitHubOAuthEnabled'),
    github_client_id: o.get('GitHubClientId'),
    oidc_enabled: o.bool('oidc.enabled'),
    oidc_client_id: o.get('oidc.client_id'),
    oidc_authorization_endpoint: o.get('oidc.authorization_endpoint'),
    linuxdo_oauth: o.bool('LinuxDOOAuthEnabled'),
    linuxdo_client_id: o.get('LinuxDOClientId'),
    wechat_login: o.bool('WeChatAuthEnabled'),
    wechat_qrcode: o.get('WeChatAccountQRCodeImageURL'),
    telegram_oauth: o.bool('TelegramOAuthEnabled'),
    telegram_bot_name: o.get('TelegramBotName'),
    ldap_login: o.bool('LDAPEnabled'),
    self_use_mode_enabled: o.bool('SelfUseModeEnabled'),
    demo_site_enabled: o.bool('DemoSiteEnabled'),
    register_enabled: o.bool('RegisterEnabled'),
    password_login_enabled: o.bool('PasswordLoginEnabled'),
    password_register_enabled: o.bool('PasswordRegisterEnabled'),
    server_address: o.get('ServerAddress'),
    price: o.num('Price'),
    min_topup: o.num('MinTopUp'),
    setup: ctx.setup.isDone(),
    ...newApiStatusFields(o),
  };
}

export function statusRoutes(r: Router): void {
  const tags = ['status'];
  r.add({
    method: 'GET',
    url: '/api/status',
    level: 'public',
    summary: 'Public status payload (system name, switches, OAuth client ids, version, setup state)',
    tags,
    response: z.record(z.string(), z.unknown()),
    // Enabled root-defined providers are listed (custom_oauth_providers) only when there are some, as new-api does.
    handler: async ({ ctx }) => {
      const custom = await customOAuthProvidersOf(ctx).statusEntries();
      return custom.length ? { ...statusPayload(ctx), custom_oauth_providers: custom } : statusPayload(ctx);
    },
  });
  r.add({
    method: 'GET',
    url: '/api/status/test',
    level: 'admin',
    summary:
      'The server\'s self-test (new-api\'s): success, "Server is running", while the database answers; data: each dependency ok, down or skipped',
    tags,
    successMessage: 'Server is running',
    handler: async ({ ctx }) => {
      const { checks } = await checkReadiness(ctx as AppContext & ReadinessContext);
      if (checks.database === 'down') throw refused('database connection failed', ErrorCode.InternalError);
      return { checks };
    },
  });
  const text = (url: string, key: 'Notice' | 'About' | 'HomePageContent', summary: string) =>
    r.add({
      method: 'GET',
      url,
      level: 'public',
      summary,
      tags,
      response: z.string(),
      handler: ({ ctx }) => ctx.options.get(key),
    });
  text('/api/notice', 'Notice', 'The notice text (markdown)');
  text('/api/about', 'About', 'The about page content (markdown, HTML or an https URL)');
  text('/api/home_page_content', 'HomePageContent', 'The home page content (markdown, HTML or an https URL)');
}
