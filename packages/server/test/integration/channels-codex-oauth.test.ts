import crypto from 'node:crypto';
import { ChannelType, ErrorCode } from '@tollway/shared';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { CallResult, Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, lastLogOf, userQuota } from '../support/gateway.js';
import {
  CODEX_CLIENT,
  CODEX_REDIRECT,
  CODEX_TOKEN_LIFETIME,
  CODEX_USAGE,
  startMockCodex,
  type MockCodex,
} from '../support/mock-codex.js';

type Answer<T = unknown> = { success: boolean; message: string; code?: string; data?: T };
const codeOf = (res: CallResult) => (res.body as Answer).code;
const MODEL = 'gpt-5-codex';
/** The model of the channel made with a new sign-in's credential. */
const SIGNED_IN_MODEL = 'gpt-5-codex-new';
/** Ratio 0.5, completion ratio 2: (12 + 5 × 2) × 0.5 = 11 per call of the mock's usage. */
const PRICE = 11;

interface Info {
  account_id: string;
  email: string;
  expires_at: string;
  last_refresh: string;
}

/**
 * Codex channels' OAuth credential through the management API (new-api's routes) against a mock of OpenAI's
 * sign-in service and of the ChatGPT backend: PKCE sign-in, refresh, the usage document, and the relay renewing
 * an expired access token once.
 */
describe.each(dialects)('Codex channel credentials on %s', (dialect) => {
  const env: Record<string, string> = { CRYPTO_SECRET: 'codex-credential-test-secret-0042' };
  let t: TestApp, root: Client, plain: Client, codex: MockCodex, base: string, key: string, userId: number;
  useGateway(
    dialect,
    {
      env,
      user: 'codex-user',
      quota: 10_000_000,
      users: ['codex-plain'],
      mock: async () => {
        const m = await startMockCodex({});
        env.CODEX_OAUTH_BASE_URL = m.url;
        return m;
      },
    },
    async (gw) => {
      ({ t, root, base, key, mock: codex } = gw);
      plain = gw.users[0]!;
      userId = gw.user.userId!;
      for (const [k, v] of [
        ['ModelRatio', JSON.stringify({ [MODEL]: 0.5, [SIGNED_IN_MODEL]: 0.5 })],
        ['CompletionRatio', JSON.stringify({ [MODEL]: 2, [SIGNED_IN_MODEL]: 2 })],
      ])
        expect((await root.call('PUT', '/api/option/', { key: k, value: v })).body.success).toBe(true);
    },
  );

  const addCodex = (name: string, credential: Record<string, string>, models = MODEL) =>
    addChannel(root, { name, type: ChannelType.Codex, key: JSON.stringify(credential), baseUrl: codex.url, models });
  const storedKey = async (id: number) =>
    JSON.parse((await t.runtime.ctx.channels.get(id)).key) as Record<string, string>;
  const start = async (path = '/api/channel/codex/oauth/start') => {
    const res = await root.call<{ authorize_url: string }>('POST', path);
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!.authorize_url;
  };
  const redirected = (code: string, state: string) => `${CODEX_REDIRECT}?code=${code}&scope=openid&state=${state}`;

  it('starts a PKCE S256 sign-in, refuses a wrong state, and exchanges the code for a new channel credential', async () => {
    const url = new URL(await start());
    expect(`${url.origin}${url.pathname}`).toBe(`${codex.url}/oauth/authorize`);
    const q = url.searchParams;
    expect(Object.fromEntries(q)).toMatchObject({
      response_type: 'code',
      client_id: CODEX_CLIENT,
      redirect_uri: CODEX_REDIRECT,
      scope: 'openid profile email offline_access',
      code_challenge_method: 'S256',
    });
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[0-9a-f]{32}$/);
    const code = codex.authorize(url.toString(), 'acct-new', 'new@example.com');
    const exchanges = codex.tokenRequests.length;

    const complete = (input: string) =>
      root.call<Record<string, string>>('POST', '/api/channel/codex/oauth/complete', { input });
    const wrong = await complete(redirected(code, 'f'.repeat(32)));
    expect([wrong.body.success, codeOf(wrong)]).toEqual([false, ErrorCode.CodexSignInStateMismatch]);
    expect(codeOf(await complete(code))).toBe(ErrorCode.CodexSignInInputInvalid);
    expect(codex.tokenRequests).toHaveLength(exchanges);

    const before = Date.now();
    const done = await complete(redirected(code, q.get('state')!));
    expect(done.body).toMatchObject({ success: true, message: 'generated' });
    const exchange = codex.tokenRequests.at(-1)!;
    expect(exchange).toMatchObject({ grant_type: 'authorization_code', code, redirect_uri: CODEX_REDIRECT });
    expect(crypto.createHash('sha256').update(exchange.code_verifier!).digest('base64url')).toBe(
      q.get('code_challenge'),
    );
    const data = done.body.data!;
    const cred = JSON.parse(data.key!) as Record<string, string>;
    expect(cred).toMatchObject({ account_id: 'acct-new', email: 'new@example.com', type: 'codex' });
    expect(cred.refresh_token).toMatch(/^rt-acct-new-/);
    expect(data).toMatchObject({ account_id: 'acct-new', email: 'new@example.com', expires_at: cred.expired });
    const expires = Date.parse(data.expires_at!);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + CODEX_TOKEN_LIFETIME * 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + CODEX_TOKEN_LIFETIME * 1000);
    // The sign-in is used up; the credential works for a channel made with it.
    expect(codeOf(await complete(redirected(code, q.get('state')!)))).toBe(ErrorCode.CodexSignInNotStarted);
    await addCodex('codex-signed-in', cred, SIGNED_IN_MODEL);
    const sdk = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const res = await sdk.responses.create({ model: SIGNED_IN_MODEL, input: 'hi' });
    expect(res.output_text).toBe('Hello from the mock!');
    expect(codex.requests.at(-1)!.headers['chatgpt-account-id']).toBe('acct-new');
  });

  it('signs a channel in again: the key is replaced (stored, never answered), refreshed, and the usage read', async () => {
    const id = await addCodex('codex-stale', { access_token: 'at-stale', account_id: 'acct-old' }, 'codex-stale-model');
    const other = await addChannel(root, { name: 'not-codex', key: 'sk-x', baseUrl: codex.url, models: 'x-model' });
    expect(codeOf(await root.call('POST', `/api/channel/${other}/codex/oauth/start`))).toBe(ErrorCode.CodexOnly);
    expect(codeOf(await root.call('POST', `/api/channel/${other}/codex/refresh`))).toBe(ErrorCode.CodexOnly);
    expect(codeOf(await root.call('POST', `/api/channel/${id}/codex/refresh`))).toBe(
      ErrorCode.CodexRefreshTokenMissing,
    );

    const url = await start(`/api/channel/${id}/codex/oauth/start`);
    const state = new URL(url).searchParams.get('state')!;
    const code = codex.authorize(url, 'acct-7');
    // The sign-in belongs to this channel: the new-channel flow has none pending.
    expect(
      codeOf(await root.call('POST', '/api/channel/codex/oauth/complete', { input: redirected(code, state) })),
    ).toBe(ErrorCode.CodexSignInNotStarted);
    const saved = await root.call<Info & { channel_id: number }>('POST', `/api/channel/${id}/codex/oauth/complete`, {
      input: redirected(code, state),
    });
    expect(saved.body).toMatchObject({
      success: true,
      message: 'saved',
      data: { channel_id: id, account_id: 'acct-7' },
    });
    const signedIn = await storedKey(id);
    expect(signedIn).toMatchObject({ account_id: 'acct-7', type: 'codex' });
    expect(JSON.stringify(saved.body)).not.toContain(signedIn.access_token);
    const raw = await t.database.db.kysely
      .selectFrom('channels')
      .select('key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(raw.key).not.toContain(signedIn.access_token);
    const listed = await root.call('GET', `/api/channel/${id}`);
    expect(JSON.stringify(listed.body)).not.toContain(signedIn.access_token);
    expect(JSON.stringify(listed.body)).not.toContain(signedIn.refresh_token);

    const refreshed = await root.call<Info & Record<string, unknown>>('POST', `/api/channel/${id}/codex/refresh`);
    expect(refreshed.body).toMatchObject({
      success: true,
      message: 'refreshed',
      data: { channel_id: id, channel_type: ChannelType.Codex, channel_name: 'codex-stale', account_id: 'acct-7' },
    });
    expect(codex.tokenRequests.at(-1)).toMatchObject({
      grant_type: 'refresh_token',
      client_id: CODEX_CLIENT,
      refresh_token: signedIn.refresh_token,
    });
    const renewed = await storedKey(id);
    expect(renewed.access_token).not.toBe(signedIn.access_token);
    expect(renewed.refresh_token).not.toBe(signedIn.refresh_token);
    expect(renewed).toMatchObject({ account_id: 'acct-7', email: 'acct-7@example.com', id_token: signedIn.id_token });
    expect(renewed.expired).toBe((refreshed.body.data as Info).expires_at);
    expect(JSON.stringify(refreshed.body)).not.toContain(renewed.access_token);

    // The usage document comes from the channel's address, through the outbound guard.
    const blocked = await root.call('GET', `/api/channel/${id}/codex/usage`);
    expect([blocked.body.success, codeOf(blocked)]).toEqual([false, ErrorCode.CodexUsageFailed]);
    for (const [k, v] of [
      ['fetch_setting.allow_private_ip', 'true'],
      ['fetch_setting.allowed_ports', '[]'],
    ])
      expect((await root.call('PUT', '/api/option/', { key: k, value: v })).body.success).toBe(true);
    const usage = await root.call('GET', `/api/channel/${id}/codex/usage`);
    expect(usage.body).toEqual({ success: true, message: '', upstream_status: 200, data: CODEX_USAGE });
    expect(codex.usageRequests.at(-1)).toBe(renewed.access_token);
    // An expired token: refreshed once, the document read with the new one.
    codex.expire(renewed.access_token!);
    const seen = codex.usageRequests.length;
    const again = await root.call('GET', `/api/channel/${id}/codex/usage`);
    expect(again.body).toMatchObject({ success: true, upstream_status: 200, data: CODEX_USAGE });
    expect(codex.usageRequests).toHaveLength(seen + 2);
    expect(codex.usageRequests.at(-1)).toBe((await storedKey(id)).access_token);
  });

  it('the relay renews an expired access token once, retries, and bills the call once', async () => {
    codex.addRefreshToken('rt-seed', 'acct-r');
    const id = await addCodex('codex-expired', {
      access_token: 'at-expired',
      account_id: 'acct-r',
      refresh_token: 'rt-seed',
    });
    const sdk = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const quota = await userQuota(t, userId);
    const grants = codex.tokenRequests.length;
    const calls = codex.requests.length;
    const res = await sdk.responses.create({ model: MODEL, instructions: 'be brief', input: 'hi' });
    expect(res.output_text).toBe('Hello from the mock!');
    expect(codex.tokenRequests.slice(grants)).toEqual([
      { grant_type: 'refresh_token', client_id: CODEX_CLIENT, refresh_token: 'rt-seed' },
    ]);
    const stored = await storedKey(id);
    expect(stored.refresh_token).not.toBe('rt-seed');
    expect(codex.requests.slice(calls).map((r) => r.headers.authorization)).toEqual([`Bearer ${stored.access_token}`]);
    expect(quota - (await userQuota(t, userId))).toBe(PRICE);
    const log = await lastLogOf(t, MODEL);
    expect([Number(log.quota), log.channel_id]).toEqual([PRICE, id]);
    // The renewed key is the channel's now: the next call needs no refresh.
    await sdk.responses.create({ model: MODEL, instructions: 'be brief', input: 'again' });
    expect(codex.tokenRequests).toHaveLength(grants + 1);
    expect(quota - (await userQuota(t, userId))).toBe(2 * PRICE);
    // A fresh token refused again within the minute is not renewed again: the call fails, unbilled.
    codex.expire((await storedKey(id)).access_token!);
    await expect(sdk.responses.create({ model: MODEL, instructions: 'be brief', input: 'no' })).rejects.toMatchObject({
      status: 401,
    });
    expect(codex.tokenRequests).toHaveLength(grants + 1);
    expect(quota - (await userQuota(t, userId))).toBe(2 * PRICE);
  });

  it('refuses every Codex route to a user who is not an administrator', async () => {
    const grants = codex.tokenRequests.length;
    for (const [method, url] of [
      ['POST', '/api/channel/codex/oauth/start'],
      ['POST', '/api/channel/codex/oauth/complete'],
      ['POST', '/api/channel/1/codex/oauth/start'],
      ['POST', '/api/channel/1/codex/oauth/complete'],
      ['POST', '/api/channel/1/codex/refresh'],
      ['GET', '/api/channel/1/codex/usage'],
    ] as const) {
      const res = await plain.call(method, url, method === 'POST' ? { input: 'code#state' } : undefined);
      expect([res.status, res.body.success, codeOf(res)], url).toEqual([403, false, ErrorCode.NoPermission]);
    }
    expect(codex.tokenRequests).toHaveLength(grants);
  });
});
