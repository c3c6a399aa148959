import { ErrorCode } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import texts from '../../../web/src/i18n/errors.js';
import { Client, type CallResult, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

type Coded = { success: boolean; message: string; code?: string; params?: Record<string, string | number> };

/** The placeholders of a console text: {{name}}. */
const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!);

/**
 * A refusal the console can show in the viewer's language: success false, the English message kept, a code
 * with a zh and an en text, and a value for every placeholder of those texts.
 */
function expectShown(res: CallResult, code: ErrorCode, params?: Record<string, unknown>): void {
  const body = res.body as Coded;
  expect(body.success, body.message).toBe(false);
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.code, body.message).toBe(code);
  for (const lang of ['zh', 'en'] as const) {
    const text = texts[lang][code];
    expect(text, `${lang} text of ${code}`).toBeTruthy();
    for (const name of placeholders(text)) expect(body.params?.[name], `${code}: ${name}`).not.toBeUndefined();
  }
  if (params) expect(body.params).toMatchObject(params);
}

describe.each(dialects)('refusals of every module carry a code the console has texts for, on %s', (dialect) => {
  let t: TestApp, root: Client, alice: Client, bob: Client;
  useApp(
    dialect,
    { users: ['modcodes-alice', 'modcodes-bob'], env: { RATIO_PRESET_BASE_URL: 'http://127.0.0.1:1/presets' } },
    (app) =>
      ({
        t,
        root,
        users: [alice, bob],
      } = app),
  );

  const setOption = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  const channel = (fields: Record<string, unknown>) => ({
    mode: 'single',
    channel: { name: 'codes', type: 1, key: 'sk-codes', models: ['codes-model'], group: ['default'], ...fields },
  });

  it('input checks and the body parser: a missing field, a wrong value, malformed JSON, an unknown API', async () => {
    expectShown(await root.call('PUT', '/api/option/', {}), ErrorCode.FieldRequired, { field: 'key' });
    expectShown(
      await alice.call('POST', '/api/token/', { name: 'x', remain_quota: 'lots' }),
      ErrorCode.InputWrongType,
      { field: 'remain_quota' },
    );
    expectShown(await alice.call('POST', '/api/token/', { name: 'x'.repeat(500) }), ErrorCode.InputTooLong, {
      field: 'name',
    });
    expectShown(await alice.call('POST', '/api/user/amount', { amount: 0 }), ErrorCode.InputTooSmall, {
      field: 'amount',
      min: 1,
    });
    expectShown(
      await root.call('POST', '/api/admin/messages', { title: ' ', content: 'c', user_ids: [1] }),
      ErrorCode.FieldRequired,
      { field: 'title' },
    );
    expectShown(
      await root.call('POST', '/api/admin/messages', { title: 't', content: 'c', format: 'rtf', user_ids: [1] }),
      ErrorCode.InputNotInList,
      { field: 'format' },
    );
    expectShown(
      await root.call('POST', '/api/admin/messages', { title: 't', content: 'c', user_ids: [] }),
      ErrorCode.InputTooFew,
      { field: 'user_ids', min: 1 },
    );
    expectShown(await alice.call('DELETE', '/api/user/sessions/not-a-session'), ErrorCode.InputBadFormat, {
      field: 'id',
    });
    expectShown(
      await alice.call('PUT', '/api/token/?status_only=true', { id: 1.5, status: 1 }),
      ErrorCode.InputNotInteger,
      { field: 'id' },
    );
    const raw = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":',
    });
    expectShown({ status: raw.statusCode, body: raw.json() } as CallResult, ErrorCode.MalformedJson);
    expectShown(await alice.call('GET', '/api/no-such-route'), ErrorCode.ApiNotFound, {
      path: 'GET /api/no-such-route',
    });
  });

  it('options: each kind of wrong value, and a model price of 0, below 0 or too large to be finite', async () => {
    expectShown(
      await root.call('PUT', '/api/option/', { key: 'RetryTimes', value: 'many' }),
      ErrorCode.OptionNotNumber,
      { key: 'RetryTimes' },
    );
    expectShown(
      await root.call('PUT', '/api/option/', { key: 'RegisterEnabled', value: 'maybe' }),
      ErrorCode.OptionNotBool,
      { key: 'RegisterEnabled' },
    );
    expectShown(
      await root.call('PUT', '/api/option/', { key: 'RebatePercentage', value: '150' }),
      ErrorCode.OptionTooLarge,
      { key: 'RebatePercentage', max: 100 },
    );
    expectShown(
      await root.call('PUT', '/api/option/', { key: 'GroupRatio', value: '{"default":' }),
      ErrorCode.OptionNotJson,
      { key: 'GroupRatio' },
    );
    expectShown(await root.call('PUT', '/api/option/', { key: 'NoSuchOption', value: '1' }), ErrorCode.OptionUnknown, {
      key: 'NoSuchOption',
    });
    for (const price of ['0', '-0.5', '1e999']) {
      const res = await root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: `{"priced-model":0.01,"free-model":${price}}`,
      });
      expectShown(res, ErrorCode.ModelPriceNotPositive, { model: 'free-model' });
    }
    await setOption('ModelPrice', '{"priced-model":0.01}');
    const stored = (await root.call<{ key: string; value: string }[]>('GET', '/api/option/')).body.data!.find(
      (o) => o.key === 'ModelPrice',
    );
    expect(JSON.parse(stored!.value)).toEqual({ 'priced-model': 0.01 });
  });

  it('a ModelPrice of 0 already stored (older data, an import) stays readable after a reload; only a new write is refused', async () => {
    const db = t.database.db.kysely;
    await db.deleteFrom('options').where('key', '=', 'ModelPrice').execute();
    await db
      .insertInto('options')
      .values({ key: 'ModelPrice', value: '{"old-free-model":0,"old-model":0.02}' })
      .execute();
    await t.runtime.ctx.options.load();
    expect(t.runtime.ctx.options.json<Record<string, number>>('ModelPrice')).toEqual({
      'old-free-model': 0,
      'old-model': 0.02,
    });
    const pricing = await alice.call<{ model_name: string; model_price: number }[]>('GET', '/api/pricing');
    expect(pricing.body.success, pricing.body.message).toBe(true);
    expectShown(
      await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: '{"old-free-model":0,"old-model":0.02}' }),
      ErrorCode.ModelPriceNotPositive,
      {
        model: 'old-free-model',
      },
    );
    await setOption('ModelPrice', '{"old-model":0.02}');
  });

  it('channels: not found, a key of several lines, an unknown tag, a failed test, an unreachable upstream (models, balance)', async () => {
    expectShown(await root.call('GET', '/api/channel/987654'), ErrorCode.ChannelNotFound);
    expectShown(
      await root.call('POST', '/api/channel/', channel({ key: 'sk-one\nsk-two' })),
      ErrorCode.ChannelKeyMultiline,
    );
    expectShown(await root.call('POST', '/api/channel/tag/disabled', { tag: 'no-such-tag' }), ErrorCode.TagNotFound, {
      tag: 'no-such-tag',
    });
    const created = await root.call('POST', '/api/channel/', channel({ base_url: 'http://127.0.0.1:1' }));
    expect(created.body.success, created.body.message).toBe(true);
    const list = await root.call<{ items: { id: number; name: string }[] }>('GET', '/api/channel/?p=1&page_size=100');
    const id = list.body.data!.items.find((c) => c.name === 'codes')!.id;
    expectShown(await root.call('GET', `/api/channel/test/${id}`), ErrorCode.ChannelTestFailed);
    for (const url of [`/api/channel/fetch_models/${id}`, `/api/channel/update_balance/${id}`]) {
      expectShown(await root.call('GET', url), ErrorCode.UpstreamUnreachable, {
        reason: 'connect ECONNREFUSED 127.0.0.1:1',
      });
    }
  });

  it('tokens, redemption codes, messages: their own rules', async () => {
    const token = await alice.call<{ id: number }[]>('POST', '/api/token/', { name: 'codes' });
    const tokenId = token.body.data![0]!.id;
    expectShown(
      await alice.call('PUT', '/api/token/?status_only=true', { id: tokenId, status: 3 }),
      ErrorCode.StatusInvalid,
    );
    expectShown(
      await alice.call('PUT', '/api/token/', { id: tokenId, allow_ips: 'not-an-ip' }),
      ErrorCode.TokenAllowIpsInvalid,
      { ip: 'not-an-ip' },
    );
    expectShown(
      await root.call('POST', '/api/redemption/', { name: 'codes', count: 2, quota: 10, key: 'my-own-key' }),
      ErrorCode.RedemptionKeyOne,
    );
    expectShown(await alice.call('GET', '/api/user/messages/987654'), ErrorCode.MessageNotFound);
    expectShown(
      await root.call('POST', '/api/admin/messages', { title: 't', content: 'c', user_ids: [987654] }),
      ErrorCode.MessageUsersMissing,
      { ids: '987654' },
    );
  });

  it('users, settings, setup, sessions, verification, features this server lacks', async () => {
    expectShown(
      await root.call('POST', '/api/user/manage', { id: bob.userId, action: 'demote' }),
      ErrorCode.AlreadyCommon,
    );
    expectShown(
      await alice.call('PUT', '/api/user/setting', { notify_type: 'webhook', webhook_url: '' }),
      ErrorCode.WebhookUrlRequired,
    );
    expectShown(
      await new Client(t.app).call('POST', '/api/setup', {
        username: 'again',
        password: 'again-pass-123',
        confirmPassword: 'again-pass-123',
      }),
      ErrorCode.SetupDone,
    );
    expectShown(await alice.call('DELETE', `/api/user/sessions/${'0'.repeat(64)}`), ErrorCode.SessionNotFound);
    expectShown(await alice.call('POST', '/api/verify', { method: 'passkey' }), ErrorCode.PasskeyNotRegistered);
    expectShown(await alice.call('POST', '/api/user/passkey/login/begin'), ErrorCode.PasskeyUnavailable);
    expectShown(
      await alice.call('GET', '/api/user/self', undefined, { 'new-api-user': String(bob.userId) }),
      ErrorCode.UserHeaderMismatch,
    );
  });

  it('preset ratio files: a host that cannot be reached', async () => {
    expectShown(await root.call('GET', '/api/ratio_preset/flexible'), ErrorCode.PresetFetchFailed, { file: 'prompt' });
  });

  it('online top-up: disabled, then below the minimum', async () => {
    expectShown(
      await alice.call('POST', '/api/user/pay', { amount: 10, payment_method: 'alipay' }),
      ErrorCode.TopUpDisabled,
    );
    await setOption('MinTopUp', '5');
    expectShown(await alice.call('POST', '/api/user/amount', { amount: 2 }), ErrorCode.TopUpMinimum, { min: 5 });
  });
});
