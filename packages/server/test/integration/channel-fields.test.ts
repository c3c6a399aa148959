import Anthropic from '@anthropic-ai/sdk';
import { ChannelType, ErrorCode, type ChannelPublic } from '@tollway/shared';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

/** What new-api's console sends for a channel's "other settings", with a key Tollway does not know. */
const SETTINGS = JSON.stringify({
  allow_service_tier: true,
  disable_store: true,
  allow_safety_identifier: true,
  upstream_model_update_check_enabled: true,
  upstream_model_update_ignored_models: ['old-model'],
  some_future_setting: { nested: [1, 'two'] },
});
const SETTING = JSON.stringify({
  force_format: true,
  thinking_to_content: true,
  proxy: '',
  pass_through_body_enabled: false,
  system_prompt: 'Be brief.',
  system_prompt_override: true,
});
const HEADERS = JSON.stringify({
  'X-Proxy-Key': 'pk-{api_key}',
  'X-Static': 'static-value',
  'X-Trace': '{client_header:x-request-tag}',
  're:^x-pass-': '',
});

type Coded = { success: boolean; message: string; code?: string; params?: Record<string, unknown> };

describe.each(dialects)('channel settings, header_override and remark on %s', (dialect) => {
  const gw = useGateway(dialect, { user: 'fields-user', quota: 50_000_000 }, async ({ root }) => {
    const models = ['fields-hdr', 'fields-default', 'fields-allow', 'claude-fields', 'claude-fields-beta'];
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify(Object.fromEntries(models.map((m) => [m, 1]))),
    });
  });

  const create = async (channel: Record<string, unknown>) => {
    const res = await gw.root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: { type: 1, group: 'default', base_url: gw.mock.url, ...channel },
    });
    if (!res.body.success) throw new Error(res.body.message);
    return res.body.data!.ids[0]!;
  };
  const get = async (id: number) => (await gw.root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
  const openai = (headers: Record<string, string> = {}) =>
    new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0, defaultHeaders: headers });
  const anthropic = (headers: Record<string, string> = {}) =>
    new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0, defaultHeaders: headers });
  const lastCall = () => gw.mock.requests.at(-1)!;

  it('round-trips every field the console saves through create, update, get, list, search and copy', async () => {
    const id = await create({
      name: 'fields-roundtrip',
      key: 'sk-roundtrip',
      models: 'fields-rt',
      tag: 'fields-tag',
      settings: SETTINGS,
      header_override: HEADERS,
      remark: 'owner: ops team',
      setting: SETTING,
      param_override: JSON.stringify({ temperature: 0.2 }),
    });
    const created = await get(id);
    expect(created).toMatchObject({
      settings: SETTINGS,
      header_override: HEADERS,
      remark: 'owner: ops team',
      setting: SETTING,
      param_override: JSON.stringify({ temperature: 0.2 }),
      tag: 'fields-tag',
      other_info: '',
    });
    expect(created.channel_info).toMatchObject({ is_multi_key: false });

    // The console sends the whole channel back, a few fields changed (header_override cleared as null).
    const settings = JSON.stringify({ claude_beta_query: true, other_key: 'kept' });
    const saved = await gw.root.call<ChannelPublic>('PUT', '/api/channel/', {
      ...created,
      settings,
      header_override: null,
      remark: '',
      setting: JSON.stringify({ force_format: false }),
    });
    expect(saved.body.success, saved.body.message).toBe(true);
    expect(saved.body.data).toMatchObject({ settings, header_override: '', remark: '' });
    // A row action keeps them.
    await gw.root.call('PUT', '/api/channel/', { id, priority: 3 });
    const reloaded = await get(id);
    expect(reloaded).toMatchObject({ settings, header_override: '', remark: '', priority: 3 });
    expect(reloaded.setting).toBe(JSON.stringify({ force_format: false }));

    await gw.root.call('PUT', '/api/channel/', { id, header_override: HEADERS, remark: 'back' });
    const list = await gw.root.call<{ items: ChannelPublic[] }>('GET', '/api/channel/?p=1&page_size=100');
    expect(list.body.data!.items.find((c) => c.id === id)).toMatchObject({ settings, header_override: HEADERS });
    const found = await gw.root.call<{ items: ChannelPublic[] }>('GET', '/api/channel/search?keyword=fields-roundtrip');
    expect(found.body.data!.items.find((c) => c.id === id)).toMatchObject({ remark: 'back', settings });
    const copy = await gw.root.call<{ id: number }>('POST', `/api/channel/copy/${id}`);
    expect(await get(copy.body.data!.id)).toMatchObject({ settings, header_override: HEADERS, remark: 'back' });
  });

  it('refuses what is not a JSON object, unsafe header overrides and settings Tollway cannot honour', async () => {
    const id = await create({ name: 'fields-refuse', key: 'sk-refuse', models: 'fields-refuse' });
    const cases: [Record<string, unknown>, string, Record<string, unknown>?][] = [
      [{ settings: '[1,2]' }, ErrorCode.InputNotJsonObject],
      [{ header_override: 'not json' }, ErrorCode.InputNotJsonObject],
      [
        { header_override: JSON.stringify({ Host: 'evil.example' }) },
        ErrorCode.ChannelHeaderForbidden,
        { header: 'host' },
      ],
      [{ header_override: JSON.stringify({ 'Content-Length': '1' }) }, ErrorCode.ChannelHeaderForbidden],
      [{ header_override: JSON.stringify({ Connection: 'close' }) }, ErrorCode.ChannelHeaderForbidden],
      [{ header_override: JSON.stringify({ 'Transfer-Encoding': 'chunked' }) }, ErrorCode.ChannelHeaderForbidden],
      [{ header_override: JSON.stringify({ Authorization: 'Bearer sk-literal' }) }, ErrorCode.ChannelHeaderCredential],
      [
        { header_override: JSON.stringify({ 'X-Leak': '{client_header:Authorization}' }) },
        ErrorCode.ChannelHeaderCredential,
      ],
      [{ header_override: JSON.stringify({ 'X-Num': 5 }) }, ErrorCode.ChannelHeaderInvalid, { header: 'x-num' }],
      [{ header_override: JSON.stringify({ 'X-A': 'one\r\nX-B: two' }) }, ErrorCode.ChannelHeaderInvalid],
      [{ header_override: JSON.stringify({ 'bad name': 'v' }) }, ErrorCode.ChannelHeaderInvalid],
      [{ header_override: JSON.stringify({ 're:(': '' }) }, ErrorCode.ChannelHeaderInvalid],
      // An administrator's pattern runs in the linear-time engine: what it cannot run (a backreference) is refused.
      [{ header_override: JSON.stringify({ 're:^(x)\\1': '' }) }, ErrorCode.ChannelHeaderInvalid],
      [
        { settings: JSON.stringify({ allow_service_tier: 'yes' }) },
        ErrorCode.ChannelSettingInvalid,
        { setting: 'allow_service_tier' },
      ],
      [{ settings: JSON.stringify({ vertex_key_type: 'api_key' }) }, ErrorCode.ChannelSettingUnsupported],
      [{ settings: JSON.stringify({ aws_key_type: 'api_key' }) }, ErrorCode.ChannelSettingUnsupported],
      [{ settings: JSON.stringify({ openrouter_enterprise: true }) }, ErrorCode.ChannelSettingUnsupported],
      [{ settings: JSON.stringify({ azure_responses_version: 'preview' }) }, ErrorCode.ChannelSettingUnsupported],
      [{ remark: 'x'.repeat(256) }, ErrorCode.InputTooLong],
    ];
    for (const [fields, code, params] of cases) {
      const label = JSON.stringify(fields).slice(0, 80);
      const put = await gw.root.call('PUT', '/api/channel/', { id, ...fields });
      expectRefused(put, label);
      const body = put.body as Coded;
      expect(body.code, `${label}: ${body.message}`).toBe(code);
      if (params) expect(body.params).toMatchObject(params);
      const post = await gw.root.call('POST', '/api/channel/', {
        mode: 'single',
        channel: { name: 'fields-new', key: 'sk-new', models: 'm', type: 1, ...fields },
      });
      expect((post.body as Coded).code, label).toBe(code);
    }
    // Credentials from the key are fine, and nothing refused was stored.
    const ok = await gw.root.call('PUT', '/api/channel/', {
      id,
      header_override: JSON.stringify({ Authorization: 'Bearer {api_key}', 'x-api-key': '{api_key}' }),
    });
    expect(ok.body.success, ok.body.message).toBe(true);
    expect((await get(id)).settings).toBe('');
  });

  it('sends the header overrides upstream with placeholders filled, on relay calls and channel tests', async () => {
    const id = await create({ name: 'fields-headers', key: 'sk-hdr', models: 'fields-hdr', header_override: HEADERS });
    await openai({ 'x-request-tag': 'tag-7', 'x-pass-me': 'yes', 'x-other': 'no' }).chat.completions.create({
      model: 'fields-hdr',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const h = lastCall().headers;
    expect(lastCall().key).toBe('sk-hdr');
    expect(h).toMatchObject({
      'x-proxy-key': 'pk-sk-hdr',
      'x-static': 'static-value',
      'x-trace': 'tag-7',
      'x-pass-me': 'yes',
    });
    expect(h['x-other']).toBeUndefined();
    // Streamed, without the client header: its entry is left out.
    const stream = await openai().chat.completions.create({
      model: 'fields-hdr',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) void _;
    expect(lastCall().headers).toMatchObject({ 'x-proxy-key': 'pk-sk-hdr' });
    expect(lastCall().headers['x-trace']).toBeUndefined();
    const test = await gw.root.call('GET', `/api/channel/test/${id}?model=fields-hdr`);
    expect((test.body as Coded).success).toBe(true);
    expect(lastCall().headers).toMatchObject({ 'x-proxy-key': 'pk-sk-hdr', 'x-static': 'static-value' });
  });

  it('strips service_tier and safety_identifier unless allowed, and store when disabled', async () => {
    await create({ name: 'fields-default', key: 'sk-default', models: 'fields-default' });
    await create({ name: 'fields-allow', key: 'sk-allow', models: 'fields-allow', settings: SETTINGS });
    const ask = (model: string) =>
      openai().chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
        service_tier: 'flex',
        safety_identifier: 'user-42',
        store: true,
      });
    await ask('fields-default');
    expect(lastCall().key).toBe('sk-default');
    expect(lastCall().body).toMatchObject({ store: true });
    expect(lastCall().body).not.toHaveProperty('service_tier');
    expect(lastCall().body).not.toHaveProperty('safety_identifier');
    await ask('fields-allow');
    expect(lastCall().key).toBe('sk-allow');
    expect(lastCall().body).toMatchObject({ service_tier: 'flex', safety_identifier: 'user-42' });
    expect(lastCall().body).not.toHaveProperty('store');
    // A Responses call reaches OpenAI channels as chat: its service_tier goes along where the channel allows it.
    const respond = (model: string) =>
      openai().responses.create({
        model,
        input: 'hi',
        service_tier: 'priority',
        safety_identifier: 'user-43',
        max_output_tokens: 16,
      });
    await respond('fields-allow');
    expect(lastCall()).toMatchObject({
      path: '/v1/chat/completions',
      body: { service_tier: 'priority', safety_identifier: 'user-43' },
    });
    await respond('fields-default');
    expect(lastCall().path).toBe('/v1/chat/completions');
    expect(lastCall().body).not.toHaveProperty('service_tier');
    expect(lastCall().body).not.toHaveProperty('safety_identifier');
    expect(lastCall().body).not.toHaveProperty('user');
  });

  it('Anthropic channels: the caller anthropic-beta header and ?beta=true go on, claude_beta_query adds the query', async () => {
    const anth = { type: ChannelType.Anthropic };
    await create({ ...anth, name: 'fields-claude', key: 'sk-claude', models: 'claude-fields' });
    await create({
      ...anth,
      name: 'fields-claude-beta',
      key: 'sk-claude-beta',
      models: 'claude-fields-beta',
      settings: JSON.stringify({ claude_beta_query: true, allow_service_tier: true }),
      header_override: JSON.stringify({ 'anthropic-beta': 'from-channel-2025' }),
    });
    const message = { max_tokens: 16, messages: [{ role: 'user' as const, content: 'hi' }] };
    await anthropic({ 'anthropic-beta': 'client-beta-2025' }).messages.create({
      ...message,
      model: 'claude-fields',
      service_tier: 'auto',
    });
    expect(lastCall()).toMatchObject({ key: 'sk-claude', url: '/v1/messages' });
    expect(lastCall().headers['anthropic-beta']).toBe('client-beta-2025');
    expect(lastCall().body).not.toHaveProperty('service_tier');
    await anthropic().beta.messages.create({ ...message, model: 'claude-fields', betas: ['sdk-beta-2025'] });
    expect(lastCall()).toMatchObject({ url: '/v1/messages?beta=true' });
    expect(lastCall().headers['anthropic-beta']).toBe('sdk-beta-2025');
    await anthropic({ 'anthropic-beta': 'client-beta-2025' }).messages.create({
      ...message,
      model: 'claude-fields-beta',
      service_tier: 'auto',
    });
    expect(lastCall()).toMatchObject({ key: 'sk-claude-beta', url: '/v1/messages?beta=true' });
    expect(lastCall().headers['anthropic-beta']).toBe('from-channel-2025');
    expect(lastCall().body).toMatchObject({ service_tier: 'auto' });
  });
});
