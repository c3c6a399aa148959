import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { DialectName } from '../../src/db/connect.js';
import type { AnyKysely } from './newapi-schema.js';

/** What a test needs to know about the rows it put in a source database. */
/** A tiered price of new-api's console: Claude-style long-context tier with a night discount. */
export const NEWAPI_TIERED_EXPR =
  '(len <= 200000 ? tier("standard", p * 2.5 + c * 10 + cr * 0.25) : tier("long_context", p * 5 + c * 15 + cr * 0.5)) * (hour("Asia/Shanghai") >= 0 && hour("Asia/Shanghai") < 8 ? 0.5 : 1)';

export interface SourceFacts {
  username: string;
  password: string;
  /** The token's key as the user holds it (`sk-…`). */
  tokenKey: string;
  quota: { users: number; used: number; tokens: number };
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DAY = 86400;
/** The days of the new-api seed's two check-ins (alice's, bob's). */
export const CHECKIN_DAYS = ['2026-11-01', '2026-11-02'] as const;
/** Bob's authenticator secret in the new-api seed (base32). */
export const BOB_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** A key as new-api's common.GenerateKey makes it: 48 letters and digits, stored without `sk-`. */
export function newApiKey(): string {
  const bytes = crypto.randomBytes(48);
  return [...bytes].map((b) => ALNUM[b % ALNUM.length]).join('');
}

/** A password hash as Go's bcrypt.GenerateFromPassword(…, DefaultCost) writes it ($2a$, cost 10). */
export const goBcrypt = (password: string): string => bcrypt.hashSync(password, 10).replace(/^\$2b\$/, '$2a$');

type Values = Record<string, unknown>;

/** Inserts rows as GORM would store them: SQLite takes booleans as 0/1 and times as text. */
export function inserter(k: AnyKysely, dialect: DialectName) {
  const db = k;
  const prep = (v: unknown) =>
    dialect !== 'sqlite'
      ? v
      : typeof v === 'boolean'
        ? Number(v)
        : v instanceof Date
          ? v.toISOString().replace('T', ' ').replace('Z', '+00:00')
          : v;
  return {
    insert: async (table: string, rows: Values | Values[]) => {
      // One row per statement: rows name different columns, and SQLite has no DEFAULT in VALUES.
      for (const r of Array.isArray(rows) ? rows : [rows]) {
        await db
          .insertInto(table)
          .values(Object.fromEntries(Object.entries(r).map(([c, v]) => [c, prep(v)])))
          .execute();
      }
    },
  };
}

const now = () => Math.floor(Date.now() / 1000);

/** Realistic new-api rows: root and three users (one invited, one deleted), tokens, channels, codes, a top-up, logs and tasks. */
export async function seedNewApi(k: AnyKysely, dialect: DialectName, upstreamUrl: string): Promise<SourceFacts> {
  const db = inserter(k, dialect);
  const t = now();
  const facts: SourceFacts = {
    username: 'alice',
    password: 'alice-pass-2024',
    tokenKey: '',
    quota: { users: 0, used: 0, tokens: 0 },
  };
  const users = [
    {
      id: 1,
      username: 'root',
      password: goBcrypt('123456'),
      display_name: 'Root User',
      role: 100,
      quota: 100000000,
      used_quota: 0,
      aff_code: 'R00t',
      access_token: 'a'.repeat(32),
    },
    {
      id: 2,
      username: 'alice',
      password: goBcrypt(facts.password),
      display_name: 'Alice',
      role: 1,
      quota: 2500000,
      used_quota: 123456,
      request_count: 42,
      group: 'vip',
      aff_code: 'AbCd',
      aff_count: 1,
      aff_quota: 50000,
      aff_history: 50000,
      github_id: '4242',
      email: 'alice@example.com',
      setting: JSON.stringify({
        notify_type: 'webhook',
        quota_warning_threshold: 100000,
        webhook_url: 'https://hooks.example/alice',
        webhook_secret: 'whsec-alice',
      }),
      remark: 'early customer',
      created_at: t - 90 * DAY,
      last_login_at: t - DAY,
    },
    {
      id: 3,
      username: 'bob',
      password: goBcrypt('bob-pass-9999'),
      role: 1,
      quota: 700000,
      used_quota: 3000,
      aff_code: 'Bob1',
      inviter_id: 2,
      linux_do_id: '77',
      discord_id: 'd-991',
      created_at: t - 10 * DAY,
    },
    // new-api's display_name column is unbounded; Tollway keeps 64 characters.
    {
      id: 5,
      username: 'carol',
      display_name: `Carol ${'x'.repeat(70)}`,
      password: goBcrypt('carol-pass-1'),
      role: 1,
      quota: 1234,
      used_quota: 99,
      aff_code: 'Crl5',
      deleted_at: new Date((t - DAY) * 1000),
    },
  ];
  for (const u of users) await db.insert('users', u);
  facts.quota.users = users.reduce((n, u) => n + u.quota, 0);
  facts.quota.used = users.reduce((n, u) => n + u.used_quota, 0);
  const key = newApiKey();
  facts.tokenKey = `sk-${key}`;
  const tokens = [
    {
      id: 1,
      user_id: 2,
      key,
      name: 'alice-main',
      created_time: t - DAY,
      accessed_time: t,
      expired_time: -1,
      remain_quota: 800000,
      unlimited_quota: false,
      used_quota: 5000,
      group: '',
    },
    {
      id: 2,
      user_id: 3,
      key: newApiKey(),
      name: 'bob-unlimited',
      created_time: t,
      expired_time: -1,
      remain_quota: 0,
      unlimited_quota: true,
      model_limits_enabled: true,
      model_limits: 'gpt-4o-mini',
      cross_group_retry: true,
    },
    {
      id: 4,
      user_id: 2,
      key: newApiKey(),
      name: 'old',
      created_time: t - 30 * DAY,
      remain_quota: 777,
      unlimited_quota: false,
      deleted_at: new Date((t - DAY) * 1000),
    },
  ];
  for (const tok of tokens) await db.insert('tokens', tok);
  facts.quota.tokens = tokens.reduce((n, x) => n + x.remain_quota, 0);
  const channelInfo = (multi: boolean, size: number) =>
    JSON.stringify({
      is_multi_key: multi,
      multi_key_size: size,
      multi_key_status_list: multi ? { 1: 3 } : null,
      multi_key_polling_index: 0,
      multi_key_mode: multi ? 'polling' : '',
    });
  await db.insert('channels', [
    {
      id: 1,
      type: 1,
      key: 'upstream-key-1',
      status: 1,
      name: 'openai-main',
      weight: 5,
      created_time: t - DAY,
      base_url: upstreamUrl,
      models: 'gpt-4o-mini,gpt-4o',
      group: 'default,vip',
      model_mapping: JSON.stringify({ 'gpt-4o': 'gpt-4o-mini' }),
      status_code_mapping: JSON.stringify({ 429: '503' }),
      priority: 10,
      auto_ban: 1,
      tag: 'main',
      setting: JSON.stringify({ force_format: false }),
      header_override: JSON.stringify({ 'X-Org': 'acme', 'X-Proxy-Key': '{api_key}' }),
      channel_info: channelInfo(false, 1),
      settings: JSON.stringify({ allow_service_tier: true, azure_responses_version: 'preview', custom_flag: 1 }),
      balance: 12.5,
    },
    {
      id: 3,
      type: 1,
      key: 'k-one\nk-two',
      status: 2,
      name: 'multi-off',
      base_url: upstreamUrl,
      models: 'gpt-4o-mini',
      group: 'default',
      priority: 0,
      channel_info: channelInfo(true, 2),
      remark: 'spare',
    },
  ]);
  await db.insert('abilities', [
    { group: 'default', model: 'gpt-4o-mini', channel_id: 1, enabled: true, priority: 10, weight: 5, tag: 'main' },
    { group: 'vip', model: 'gpt-4o-mini', channel_id: 1, enabled: true, priority: 10, weight: 5, tag: 'main' },
    { group: 'default', model: 'gpt-4o', channel_id: 1, enabled: true, priority: 10, weight: 5, tag: 'main' },
    { group: 'vip', model: 'gpt-4o', channel_id: 1, enabled: true, priority: 10, weight: 5, tag: 'main' },
    { group: 'default', model: 'gpt-4o-mini', channel_id: 3, enabled: false, priority: 0, weight: 0, tag: '' },
  ]);
  await db.insert('options', [
    { key: 'SystemName', value: 'Acme AI' },
    { key: 'QuotaPerUnit', value: '500000' },
    { key: 'GitHubClientSecret', value: 'gh-client-secret' },
    { key: 'checkin_setting.max_quota', value: '2000' },
    { key: 'SomeFutureOption', value: 'x' },
    // A price of 0: new-api allows it; the import keeps it (only a new write through the API is refused).
    { key: 'ModelPrice', value: '{"free-image":0,"paid-image":0.05}' },
    // Expression billing and tool prices as new-api's console saves them (pretty JSON maps).
    { key: 'billing_setting.billing_mode', value: JSON.stringify({ 'gpt-4o': 'tiered_expr' }, null, 2) },
    { key: 'billing_setting.billing_expr', value: JSON.stringify({ 'gpt-4o': NEWAPI_TIERED_EXPR }, null, 2) },
    { key: 'tool_price_setting.prices', value: JSON.stringify({ web_search: 10 }, null, 2) },
  ]);
  await db.insert('redemptions', [
    {
      id: 1,
      user_id: 1,
      key: crypto.randomBytes(16).toString('hex'),
      status: 1,
      name: 'promo',
      quota: 100000,
      created_time: t,
      expired_time: 0,
    },
    {
      id: 2,
      user_id: 1,
      key: crypto.randomBytes(16).toString('hex'),
      status: 3,
      name: 'used',
      quota: 50000,
      created_time: t - DAY,
      redeemed_time: t,
      used_user_id: 2,
      expired_time: 0,
    },
  ]);
  await db.insert('top_ups', {
    id: 1,
    user_id: 2,
    amount: 10,
    money: 72.5,
    trade_no: 'USR2NO8a7f',
    payment_method: 'alipay',
    create_time: t - DAY,
    complete_time: t - DAY + 60,
    status: 'success',
  });
  await db.insert('logs', [
    {
      id: 1,
      user_id: 2,
      created_at: t - 400 * DAY,
      type: 2,
      content: 'old call',
      username: 'alice',
      token_name: 'alice-main',
      model_name: 'gpt-4o-mini',
      quota: 100,
      prompt_tokens: 10,
      completion_tokens: 5,
      use_time: 1,
      is_stream: false,
      channel_id: 1,
      token_id: 1,
      group: 'vip',
    },
    {
      id: 2,
      user_id: 2,
      created_at: t - DAY,
      type: 2,
      content: '',
      username: 'alice',
      token_name: 'alice-main',
      model_name: 'gpt-4o-mini',
      quota: 2000,
      prompt_tokens: 100,
      completion_tokens: 50,
      use_time: 2,
      is_stream: true,
      channel_id: 1,
      token_id: 1,
      group: 'vip',
      request_id: 'req-1',
      other: '{"model_ratio":0.075}',
    },
    { id: 3, user_id: 2, created_at: t - DAY, type: 1, content: 'top-up 10 USD', username: 'alice', quota: 5000000 },
  ]);
  await db.insert('midjourneys', [
    {
      id: 1,
      code: 1,
      user_id: 2,
      action: 'IMAGINE',
      mj_id: '1712345678901',
      prompt: 'a cat',
      status: 'SUCCESS',
      progress: '100%',
      submit_time: (t - DAY) * 1000,
      finish_time: (t - DAY + 60) * 1000,
      image_url: 'https://cdn.example/cat.png',
      channel_id: 1,
      quota: 50000,
      buttons: '[]',
      properties: '{}',
    },
    {
      id: 2,
      code: 1,
      user_id: 2,
      action: 'UPSCALE',
      mj_id: '1712345678999',
      prompt: 'a cat',
      status: 'FAILURE',
      progress: '0%',
      fail_reason: 'banned prompt',
      submit_time: (t - DAY) * 1000,
      channel_id: 1,
      quota: 10000,
    },
  ]);
  await db.insert('tasks', [
    {
      id: 1,
      created_at: t - DAY,
      updated_at: t - DAY + 120,
      task_id: 'task_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56',
      platform: 'suno',
      user_id: 2,
      group: 'vip',
      channel_id: 1,
      quota: 70000,
      action: 'MUSIC',
      status: 'SUCCESS',
      submit_time: t - DAY,
      finish_time: t - DAY + 120,
      progress: '100%',
      properties: JSON.stringify({ input: 'a song', origin_model_name: 'suno_music' }),
      private_data: JSON.stringify({ upstream_task_id: 'suno-up-77', token_id: 1 }),
      data: JSON.stringify([{ id: 'clip-1', audio_url: 'https://cdn.example/a.mp3' }]),
    },
    {
      id: 2,
      created_at: t,
      updated_at: t,
      task_id: 'video-legacy-1',
      platform: 'kling',
      user_id: 3,
      channel_id: 1,
      quota: 0,
      action: 'generate',
      status: 'IN_PROGRESS',
      submit_time: t,
      progress: '30%',
    },
    // Newer new-api names video platforms by channel type (55: Sora); Jimeng has no Tollway platform.
    {
      id: 3,
      created_at: t,
      updated_at: t,
      task_id: 'task_sora1',
      platform: '55',
      user_id: 2,
      channel_id: 1,
      quota: 30000,
      action: 'generate',
      status: 'FAILURE',
      fail_reason: 'moderation',
      submit_time: t,
      progress: '100%',
      private_data: JSON.stringify({ upstream_task_id: 'video_abc' }),
    },
    {
      id: 4,
      created_at: t,
      updated_at: t,
      task_id: 'task_hailuo1',
      platform: 'hailuo',
      user_id: 2,
      channel_id: 1,
      quota: 0,
      action: 'generate',
      status: 'SUCCESS',
      fail_reason: 'https://cdn.example/v.mp4',
      submit_time: t,
      progress: '100%',
    },
  ]);
  const hour = Math.floor((t - DAY) / 3600) * 3600;
  await db.insert('quota_data', [
    {
      id: 1,
      user_id: 2,
      username: 'alice',
      model_name: 'gpt-4o-mini',
      created_at: hour,
      token_used: 150,
      count: 1,
      quota: 2000,
    },
    {
      id: 2,
      user_id: 2,
      username: 'alice',
      model_name: 'gpt-4o',
      created_at: hour,
      token_used: 30,
      count: 2,
      quota: 900,
    },
  ]);
  // Bob signs in with an authenticator (new-api's two_fas: base32 secret; backup codes bcrypt-hashed).
  await db.insert('two_fas', {
    id: 1,
    user_id: 3,
    secret: BOB_TOTP_SECRET,
    is_enabled: true,
    created_at: new Date((t - DAY) * 1000),
    updated_at: new Date((t - DAY) * 1000),
  });
  await db.insert('two_fa_backup_codes', {
    id: 1,
    user_id: 3,
    code_hash: goBcrypt('ABCD-EFGH'),
    is_used: false,
    created_at: new Date((t - DAY) * 1000),
  });
  await db.insert('setups', { id: 1, version: 'v0.9.0', initialized_at: t - 100 * DAY });
  // Daily check-ins (new-api's checkins): the award is already in the user's quota.
  await db.insert('checkins', [
    { id: 1, user_id: 2, checkin_date: CHECKIN_DAYS[0], quota_awarded: 1500, created_at: t - 2 * DAY },
    { id: 2, user_id: 3, checkin_date: CHECKIN_DAYS[1], quota_awarded: 800, created_at: t - DAY },
  ]);
  // The model registry: a vendor, a prefix rule naming it, and a soft-deleted entry.
  await db.insert('vendors', { id: 3, name: 'OpenAI', description: 'GPT makers', icon: 'OpenAI', status: 1 });
  await db.insert('models', [
    { id: 5, model_name: 'gpt-4o', description: 'GPT-4o', tags: 'chat', vendor_id: 3, name_rule: 1, endpoints: '' },
    { id: 6, model_name: 'old-model', vendor_id: 0, deleted_at: new Date((t - DAY) * 1000) },
  ]);
  return facts;
}

/** Realistic one-api rows: root and a user with a token limited to models and a subnet, a channel with its config, a code, logs. */
export async function seedOneApi(k: AnyKysely, dialect: DialectName, upstreamUrl: string): Promise<SourceFacts> {
  const db = inserter(k, dialect);
  const t = now();
  const key = newApiKey();
  const facts: SourceFacts = {
    username: 'dave',
    password: 'dave-pass-one',
    tokenKey: `sk-${key}`,
    quota: { users: 0, used: 0, tokens: 0 },
  };
  const users = [
    {
      id: 1,
      username: 'root',
      password: goBcrypt('123456'),
      role: 100,
      quota: 500000000,
      used_quota: 0,
      aff_code: 'oR1t',
      access_token: crypto.randomBytes(16).toString('hex'),
    },
    {
      id: 2,
      username: 'dave',
      password: goBcrypt(facts.password),
      role: 1,
      quota: 900000,
      used_quota: 4000,
      request_count: 3,
      aff_code: 'dV2x',
      lark_id: 'ou_1',
    },
  ];
  for (const u of users) await db.insert('users', u);
  facts.quota.users = users.reduce((n, u) => n + u.quota, 0);
  facts.quota.used = users.reduce((n, u) => n + u.used_quota, 0);
  await db.insert('tokens', {
    id: 1,
    user_id: 2,
    key,
    name: 'dave',
    created_time: t,
    remain_quota: 300000,
    unlimited_quota: false,
    models: 'gpt-4o-mini',
    subnet: '',
  });
  facts.quota.tokens = 300000;
  await db.insert('channels', {
    id: 1,
    type: 1,
    key: 'one-upstream-key',
    status: 1,
    name: 'one-openai',
    base_url: upstreamUrl,
    models: 'gpt-4o-mini',
    group: 'default',
    priority: 0,
    config: JSON.stringify({ region: '' }),
    model_mapping: '',
  });
  // one-api's own type numbers: DeepSeek (36), Groq (29, no address: its default), DeepL (38, no counterpart).
  await db.insert('channels', [
    {
      id: 2,
      type: 36,
      key: 'ds-key',
      status: 1,
      name: 'deepseek',
      base_url: '',
      models: 'deepseek-chat',
      group: 'default',
    },
    {
      id: 3,
      type: 29,
      key: 'groq-key',
      status: 1,
      name: 'groq',
      base_url: '',
      models: 'llama3-8b-8192',
      group: 'default',
    },
    { id: 4, type: 38, key: 'deepl-key', status: 1, name: 'deepl', base_url: '', models: 'deepl-zh', group: 'default' },
  ]);
  await db.insert('abilities', { group: 'default', model: 'gpt-4o-mini', channel_id: 1, enabled: true, priority: 0 });
  await db.insert('options', { key: 'SystemName', value: 'One Gateway' });
  await db.insert('redemptions', {
    id: 1,
    user_id: 1,
    key: crypto.randomBytes(16).toString('hex'),
    status: 1,
    name: 'one-code',
    quota: 1000,
    created_time: t,
  });
  await db.insert('logs', {
    id: 1,
    user_id: 2,
    created_at: t,
    type: 2,
    username: 'dave',
    token_name: 'dave',
    model_name: 'gpt-4o-mini',
    quota: 300,
    channel_id: 1,
    elapsed_time: 2500,
    is_stream: true,
  });
  return facts;
}
