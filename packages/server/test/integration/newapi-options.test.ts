import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';

/**
 * Every option key new-api's console settings pages write (system, operation, payment, ratio, rate limit, model,
 * drawing, chat, dashboard and other settings), with a value of its type as the console sends it, and a value of
 * the wrong type where the key has one.
 */
const BOOL = [
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'EmailVerificationEnabled',
  'GitHubOAuthEnabled',
  'discord.enabled',
  'oidc.enabled',
  'WorkerAllowHttpImageRequestEnabled',
  'WeChatAuthEnabled',
  'TurnstileCheckEnabled',
  'RegisterEnabled',
  'passkey.enabled',
  'passkey.allow_insecure_origin',
  'EmailDomainRestrictionEnabled',
  'EmailAliasRestrictionEnabled',
  'SMTPSSLEnabled',
  'TelegramOAuthEnabled',
  'LinuxDOOAuthEnabled',
  'fetch_setting.enable_ssrf_protection',
  'fetch_setting.allow_private_ip',
  'fetch_setting.domain_filter_mode',
  'fetch_setting.ip_filter_mode',
  'fetch_setting.apply_ip_filter_for_domain',
  'quota_setting.enable_free_model_pre_consume',
  'DisplayTokenStatEnabled',
  'DefaultCollapseSidebar',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
  'general_setting.log_filter_autocomplete_enabled',
  'CheckSensitiveEnabled',
  'CheckSensitiveOnPromptEnabled',
  'StopOnSensitiveEnabled',
  'LogConsumeEnabled',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'monitor_setting.auto_test_channel_enabled',
  'checkin_setting.enabled',
  'StripePromotionCodesEnabled',
  'CreemTestMode',
  'WaffoEnabled',
  'WaffoSandbox',
  'AllScaleEnabled',
  'DefaultUseAutoGroup',
  'ExposeRatioEnabled',
  'console_setting.api_info_enabled',
  'console_setting.announcements_enabled',
  'console_setting.faq_enabled',
  'console_setting.uptime_kuma_enabled',
  'DataExportEnabled',
  'DrawingEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjForwardUrlEnabled',
  'MjModeClearEnabled',
  'MjActionCheckSuccessEnabled',
  'ModelRequestRateLimitEnabled',
  'gemini.remove_function_response_id_enabled',
  'claude.thinking_adapter_enabled',
  'global.pass_through_request_enabled',
  'general_setting.ping_interval_enabled',
  'gemini.thinking_adapter_enabled',
  'grok.violation_deduction_enabled',
  'performance_setting.disk_cache_enabled',
];
const NUMBER: Record<string, number> = {
  SMTPPort: 465,
  LinuxDOMinimumTrustLevel: 2,
  QuotaForNewUser: 100,
  PreConsumedQuota: 200,
  QuotaForInviter: 10,
  QuotaForInvitee: 20,
  RetryTimes: 2,
  'token_setting.max_user_tokens': 50,
  QuotaRemindThreshold: 500,
  'monitor_setting.auto_test_channel_minutes': 15,
  'checkin_setting.min_quota': 1000,
  'checkin_setting.max_quota': 5000,
  MinTopUp: 2,
  StripeMinTopUp: 3,
  WaffoMinTopUp: 4,
  DataExportInterval: 7,
  ModelRequestRateLimitCount: 10,
  ModelRequestRateLimitSuccessCount: 900,
  ModelRequestRateLimitDurationMinutes: 2,
  'general_setting.ping_interval_seconds': 30,
  QuotaPerUnit: 500000,
  USDExchangeRate: 7.1,
  'general_setting.custom_currency_exchange_rate': 0.92,
  ChannelDisableThreshold: 6,
  Price: 7.2,
  StripeUnitPrice: 8.5,
  WaffoUnitPrice: 1.1,
  AllScaleUnitPrice: 1.2,
  'claude.thinking_adapter_budget_tokens_percentage': 0.7,
  'gemini.thinking_adapter_budget_tokens_percentage': 0.5,
  'grok.violation_deduction_amount': 0.1,
  'performance_setting.disk_cache_threshold_mb': 20,
  'performance_setting.disk_cache_max_size_mb': 2048,
};
const ENUM: Record<string, [string, string]> = {
  'general_setting.quota_display_type': ['CNY', 'EUR'],
  'passkey.user_verification': ['required', 'maybe'],
  'passkey.attachment_preference': ['platform', 'usb'],
  DataExportDefaultTime: ['day', 'year'],
};
const JSON_VALUES: Record<string, unknown> = {
  TopupGroupRatio: { default: 1, vip: 0.9 },
  'payment_setting.amount_options': [10, 20, 50],
  'payment_setting.amount_discount': { '100': 0.95 },
  PayMethods: [{ name: 'Alipay', type: 'alipay', color: 'blue' }],
  CreemProducts: [],
  WaffoPayMethods: [],
  ModelPrice: { 'dall-e-3': 0.04 },
  ModelRatio: { 'gpt-4o': 1.25 },
  CacheRatio: { 'gpt-4o': 0.5 },
  CreateCacheRatio: { 'claude-3-5-haiku-20241022': 1.25 },
  CompletionRatio: { 'gpt-4o': 4 },
  GroupRatio: { default: 1, vip: 1 },
  GroupGroupRatio: { vip: { default: 0.9 } },
  ImageRatio: { 'gpt-image-1': 2 },
  AudioRatio: { 'gpt-4o-audio-preview': 16 },
  AudioCompletionRatio: { 'gpt-4o-audio-preview': 2 },
  AutoGroups: ['default'],
  UserUsableGroups: { default: 'Default', vip: 'VIP' },
  'group_ratio_setting.group_special_usable_group': { vip: { '+:svip': 'SVIP' } },
  ModelRequestRateLimitGroup: { vip: [100, 90] },
  'console_setting.api_info': [{ url: 'https://api.example.com', route: '/v1', description: 'Main', color: 'blue' }],
  'console_setting.announcements': [
    { content: 'Hello', publishDate: '2026-01-01T00:00:00Z', type: 'default', extra: '' },
  ],
  'console_setting.faq': [{ question: 'Q?', answer: 'A.' }],
  'console_setting.uptime_kuma_groups': [
    { categoryName: 'Core', url: 'https://status.example.com', slug: 'core', description: '' },
  ],
  Chats: [{ ChatGPT: 'https://chat.example.com' }],
  'gemini.safety_settings': { default: 'OFF' },
  'gemini.version_settings': { default: 'v1beta' },
  'gemini.supported_imagine_models': ['gemini-2.0-flash-exp-image-generation'],
  'claude.model_headers_settings': {},
  'claude.default_max_tokens': { default: 8192 },
  'global.thinking_model_blacklist': ['o1'],
  'global.chat_completions_to_responses_policy': {},
  'fetch_setting.domain_list': ['example.com'],
  'fetch_setting.ip_list': [],
  'fetch_setting.allowed_ports': ['80', '443'],
};
const TEXT = [
  'GitHubClientId',
  'discord.client_id',
  'oidc.client_id',
  'oidc.well_known',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
  'Notice',
  'SMTPServer',
  'SMTPAccount',
  'SMTPFrom',
  'WorkerUrl',
  'Footer',
  'WeChatServerAddress',
  'WeChatAccountQRCodeImageURL',
  'TurnstileSiteKey',
  'passkey.rp_display_name',
  'passkey.rp_id',
  'passkey.origins',
  'EmailDomainWhitelist',
  'TelegramBotName',
  'LinuxDOClientId',
  'ServerAddress',
  'legal.user_agreement',
  'legal.privacy_policy',
  'SystemName',
  'Logo',
  'About',
  'HomePageContent',
  'TopUpLink',
  'general_setting.docs_link',
  'general_setting.custom_currency_symbol',
  'SensitiveWords',
  'AutomaticDisableKeywords',
  'PayAddress',
  'EpayId',
  'CustomCallbackAddress',
  'StripePriceId',
  'WaffoPublicCert',
  'WaffoSandboxPublicCert',
  'WaffoMerchantId',
  'WaffoNotifyUrl',
  'WaffoReturnUrl',
  'WaffoCurrency',
  'AllScaleBaseURL',
  'performance_setting.disk_cache_path',
];
/** Text with a format: a valid value and an invalid one. */
const FORMATTED: Record<string, [string, string]> = {
  HeaderNavModules: ['{"home":true,"pricing":{"enabled":true}}', '[1]'],
  SidebarModulesAdmin: ['{"admin":{"channel":true}}', 'not json'],
  AutomaticDisableStatusCodes: ['401,403,500-599', '99'],
  AutomaticRetryStatusCodes: ['429,500-503', '503-500'],
};
/** Write-only credentials: accepted, read back blank. */
const SECRET = [
  'GitHubClientSecret',
  'discord.client_secret',
  'oidc.client_secret',
  'SMTPToken',
  'WorkerValidKey',
  'WeChatServerToken',
  'TurnstileSecretKey',
  'TelegramBotToken',
  'LinuxDOClientSecret',
  'EpayKey',
  'StripeApiSecret',
  'StripeWebhookSecret',
  'CreemApiKey',
  'CreemWebhookSecret',
  'WaffoApiKey',
  'WaffoPrivateKey',
  'WaffoSandboxApiKey',
  'WaffoSandboxPrivateKey',
  'AllScaleApiKey',
  'AllScaleApiSecret',
];

describe.each(dialects)('new-api console option keys on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    user = await createUserClient(t.app, root, 'opt-user');
  });
  afterAll(async () => t?.close());

  const put = async (key: string, value: unknown) => (await root.call('PUT', '/api/option/', { key, value })).body;
  const options = async () =>
    new Map(
      (await root.call<{ key: string; value: string }[]>('GET', '/api/option/')).body.data!.map((o) => [
        o.key,
        o.value,
      ]),
    );
  const status = async () => (await new Client(t.app).call<Record<string, unknown>>('GET', '/api/status')).body.data!;

  it('accepts every key the console writes with a value of its type, and reads each back', async () => {
    const written = new Map<string, string>();
    for (const key of BOOL) written.set(key, 'true');
    for (const [key, n] of Object.entries(NUMBER)) written.set(key, String(n));
    for (const [key, [good]] of Object.entries({ ...ENUM, ...FORMATTED })) written.set(key, good);
    for (const [key, v] of Object.entries(JSON_VALUES)) written.set(key, JSON.stringify(v, null, 2));
    for (const key of TEXT) written.set(key, `text of ${key}`);
    const numbers = new Set(Object.keys(NUMBER));
    for (const [key, text] of written) {
      const body = await put(key, numbers.has(key) ? Number(text) : text);
      expect(body, key).toMatchObject({ success: true });
    }
    for (const key of SECRET) expect(await put(key, `secret of ${key}`), key).toMatchObject({ success: true });
    expect(written.size + SECRET.length).toBeGreaterThanOrEqual(200);

    const back = await options();
    for (const [key, text] of written) expect(back.get(key), key).toBe(text);
    for (const key of SECRET) expect(back.get(key), key).toBe('');
  });

  it('refuses a value of the wrong type, naming the key', async () => {
    const wrong: [string, unknown][] = [
      ...BOOL.map((k): [string, unknown] => [k, 'yes']),
      ...Object.keys(NUMBER).map((k): [string, unknown] => [k, 'abc']),
      ...Object.entries({ ...ENUM, ...FORMATTED }).map(([k, [, bad]]): [string, unknown] => [k, bad]),
      ...Object.keys(JSON_VALUES).map((k): [string, unknown] => [k, '{bad']),
      ['payment_setting.amount_options', '["ten"]'],
      ['console_setting.faq', '{"question":"not a list"}'],
      ['ModelRequestRateLimitGroup', '{"vip":[1]}'],
      ['token_setting.max_user_tokens', 0],
      ['console_setting.api_info', 'null'],
    ];
    const before = await options();
    for (const [key, value] of wrong) {
      const body = await put(key, value);
      expect(body.success, `${key}=${String(value)}`).toBe(false);
      expect(body.message, key).toContain(key);
    }
    expect(await options()).toEqual(before);
    // Only the root may write them.
    expect((await user.call('PUT', '/api/option/', { key: 'legal.user_agreement', value: 'x' })).body.success).toBe(
      false,
    );
  });

  it("checkin_setting.* are new-api's names of the CheckIn* options: one value under both names", async () => {
    expect(await put('checkin_setting.enabled', 'true')).toMatchObject({ success: true });
    expect(await put('checkin_setting.min_quota', '300')).toMatchObject({ success: true });
    expect(await put('checkin_setting.max_quota', 900)).toMatchObject({ success: true });
    let o = await options();
    expect([o.get('CheckInEnabled'), o.get('CheckInQuota'), o.get('CheckInMaxQuota')]).toEqual(['true', '300', '900']);
    expect(await put('CheckInQuota', '400')).toMatchObject({ success: true });
    o = await options();
    expect(o.get('checkin_setting.min_quota')).toBe('400');
    expect(await status()).toMatchObject({ checkin_enabled: true, check_in_enabled: true });
    const row = await t.database.db.kysely
      .selectFrom('options')
      .select(['key', 'value'])
      .where('key', 'like', 'checkin_setting%')
      .execute();
    expect(row).toEqual([]);
    // The check-in credits an amount in the range set under new-api's names.
    const res = await user.call<{ quota: number }>('POST', '/api/user/check_in');
    expect(res.body.success, res.body.message).toBe(true);
    const credited = (await user.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota;
    expect(credited).toBeGreaterThanOrEqual(400);
    expect(credited).toBeLessThanOrEqual(900);
    expect(await put('checkin_setting.enabled', false)).toMatchObject({ success: true });
    expect(await status()).toMatchObject({ checkin_enabled: false, check_in_enabled: false });
  });

  it('the quota display type and DisplayInCurrencyEnabled follow each other; status carries the currency', async () => {
    await put('USDExchangeRate', 7.25);
    expect(await put('general_setting.quota_display_type', 'CNY')).toMatchObject({ success: true });
    expect(await status()).toMatchObject({
      quota_display_type: 'CNY',
      display_in_currency: true,
      usd_exchange_rate: 7.25,
    });
    expect(await put('general_setting.quota_display_type', 'TOKENS')).toMatchObject({ success: true });
    expect((await options()).get('DisplayInCurrencyEnabled')).toBe('false');
    expect(await status()).toMatchObject({ quota_display_type: 'TOKENS', display_in_currency: false });
    expect(await put('DisplayInCurrencyEnabled', 'true')).toMatchObject({ success: true });
    expect((await options()).get('general_setting.quota_display_type')).toBe('USD');
    await put('general_setting.custom_currency_symbol', '€');
    await put('general_setting.custom_currency_exchange_rate', '0.9');
    await put('general_setting.quota_display_type', 'CUSTOM');
    expect(await status()).toMatchObject({
      quota_display_type: 'CUSTOM',
      custom_currency_symbol: '€',
      custom_currency_exchange_rate: 0.9,
      display_in_currency: true,
    });
    await put('DisplayInCurrencyEnabled', 'false');
    expect(await status()).toMatchObject({ quota_display_type: 'TOKENS' });
  });

  it('rows written under new-api names (an import) count after a reload; the stored display type decides the currency flag', async () => {
    const k = t.database.db.kysely;
    await k
      .deleteFrom('options')
      .where('key', 'in', ['CheckInMaxQuota', 'general_setting.quota_display_type', 'DisplayInCurrencyEnabled'])
      .execute();
    await k
      .insertInto('options')
      .values([
        { key: 'checkin_setting.max_quota', value: '777' },
        { key: 'general_setting.quota_display_type', value: 'TOKENS' },
        { key: 'DisplayInCurrencyEnabled', value: 'true' },
      ])
      .execute();
    await t.runtime.ctx.options.load();
    const o = await options();
    expect([o.get('CheckInMaxQuota'), o.get('checkin_setting.max_quota'), o.get('DisplayInCurrencyEnabled')]).toEqual([
      '777',
      '777',
      'false',
    ]);
    expect(await status()).toMatchObject({ quota_display_type: 'TOKENS', display_in_currency: false });
    // A row of the option itself wins over the alias row.
    await put('CheckInMaxQuota', '888');
    await t.runtime.ctx.options.load();
    expect((await options()).get('checkin_setting.max_quota')).toBe('888');
    await put('general_setting.quota_display_type', 'USD');
  });

  it('dashboard panels: flags in status, content only while a panel is on; legal-text flags and menu layouts', async () => {
    for (const key of ['api_info', 'announcements', 'faq']) {
      await put(`console_setting.${key}`, JSON.stringify(JSON_VALUES[`console_setting.${key}`]));
      await put(`console_setting.${key}_enabled`, 'false');
    }
    await put('console_setting.uptime_kuma_enabled', 'false');
    let s = await status();
    expect(s).toMatchObject({
      api_info_enabled: false,
      announcements_enabled: false,
      faq_enabled: false,
      uptime_kuma_enabled: false,
    });
    expect(s).not.toHaveProperty('api_info');
    expect(s).not.toHaveProperty('faq');
    await put('console_setting.api_info_enabled', 'true');
    await put('console_setting.faq_enabled', 'true');
    await put('console_setting.uptime_kuma_enabled', 'true');
    s = await status();
    expect(s).toMatchObject({
      api_info_enabled: true,
      faq_enabled: true,
      uptime_kuma_enabled: true,
      announcements_enabled: false,
    });
    expect(s.api_info).toEqual(JSON_VALUES['console_setting.api_info']);
    expect(s.faq).toEqual(JSON_VALUES['console_setting.faq']);
    expect(s).not.toHaveProperty('announcements');

    await put('legal.user_agreement', '');
    await put('legal.privacy_policy', '# Privacy');
    await put('HeaderNavModules', '{"home":true}');
    s = await status();
    expect(s).toMatchObject({
      user_agreement_enabled: false,
      privacy_policy_enabled: true,
      HeaderNavModules: '{"home":true}',
    });
    // Sign-in methods Tollway lacks stay off whatever their stored switches say; passkeys follow theirs.
    await put('discord.enabled', 'true');
    await put('passkey.enabled', 'true');
    expect(await status()).toMatchObject({ discord_oauth: false, passkey_login: true });
  });
});
