import { ChannelType, ErrorCode, type ChannelPublic } from '@tollway/shared';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { MISSING_MODEL, OLLAMA_VERSION, startMockOllama, type MockOllama } from '../support/mock-ollama.js';

const MODEL = 'gpt-4o-mini';
const KEYS = ['sk-mk-zero-0123456789abcdef', 'sk-mk-one-0123456789abcdefg', 'sk-mk-two-0123456789abcdefg'];

interface KeyPage {
  keys: { index: number; status: number; key_preview: string; reason?: string; disabled_time?: number }[];
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
  enabled_count: number;
  manual_disabled_count: number;
  auto_disabled_count: number;
}

type Coded = { success: boolean; message: string; code?: string; data?: unknown };
const codeOf = (res: CallResult) => (res.body as Coded).code;

describe.each(dialects)('multi-key management, tag models and Ollama tools on %s', (dialect) => {
  let t: TestApp, root: Client, mock: MockUpstream, base: string, key: string, plain: Client;
  let ollama: MockOllama;
  useGateway(dialect, { user: 'manage-user', quota: 50_000_000, users: ['manage-plain'] }, (gw) => {
    ({ t, root, mock, base, key } = gw);
    plain = gw.users[0]!;
  });
  beforeAll(async () => {
    ollama = await startMockOllama();
    return () => ollama.close();
  });

  const ctx = () => t.runtime.ctx;
  const create = async (channel: Record<string, unknown>, mode = 'single', extra: Record<string, unknown> = {}) => {
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode,
      ...extra,
      channel: { models: MODEL, group: ['default'], ...channel },
    });
    if (!res.body.success) throw new Error(res.body.message);
    return res.body.data!.ids[0]!;
  };
  const get = async (id: number) => (await root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
  const manage = <T = unknown>(body: Record<string, unknown>) =>
    root.call<T>('POST', '/api/channel/multi_key/manage', body);
  /** The keys the relay sent upstream for `n` chat completions made with a real client. */
  const relayKeys = async (n: number): Promise<string[]> => {
    const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const from = mock.requests.length;
    for (let i = 0; i < n; i++)
      await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    return mock.requests.slice(from).map((r) => r.key);
  };

  it('disable, enable and delete of single keys change the keys the relay sends, and keys are only ever masked', async () => {
    const id = await create({ name: 'multi', key: KEYS.join('\n'), base_url: mock.url }, 'multi_to_single', {
      multi_key_mode: 'polling',
    });
    const answers: unknown[] = [];
    const status = async (extra: Record<string, unknown> = {}) => {
      const res = await manage<KeyPage>({ channel_id: id, action: 'get_key_status', ...extra });
      expect(res.body.success, res.body.message).toBe(true);
      answers.push(res.body);
      return res.body.data!;
    };
    let page = await status();
    expect(page).toMatchObject({ total: 3, page: 1, page_size: 50, total_pages: 1, enabled_count: 3 });
    expect(page.keys.map((k) => [k.index, k.status])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    expect(page.keys[1]!.key_preview).toBe(`${KEYS[1]!.slice(0, 3)}********${KEYS[1]!.slice(-4)}`);
    expect(new Set(await relayKeys(3))).toEqual(new Set(KEYS));

    const off = await manage({ channel_id: id, action: 'disable_key', key_index: 1 });
    expect(off.body).toMatchObject({ success: true, message: 'key disabled' });
    expect((await get(id)).channel_info.multi_key_status_list).toEqual({ 1: 2 });
    const without = await relayKeys(4);
    expect(without).not.toContain(KEYS[1]);
    expect(new Set(without)).toEqual(new Set([KEYS[0], KEYS[2]]));

    page = await status({ status: 2 });
    expect(page).toMatchObject({ total: 1, enabled_count: 2, manual_disabled_count: 1, auto_disabled_count: 0 });
    expect(page.keys.map((k) => k.index)).toEqual([1]);
    expect(page.keys[0]!.disabled_time).toBeGreaterThan(0);
    page = await status({ page: 2, page_size: 2 });
    expect(page).toMatchObject({ total: 3, page: 2, page_size: 2, total_pages: 2 });
    expect(page.keys.map((k) => k.index)).toEqual([2]);

    expect((await manage({ channel_id: id, action: 'enable_key', key_index: 1 })).body.success).toBe(true);
    expect(new Set(await relayKeys(3))).toEqual(new Set(KEYS));

    // Every key off: the relay has nothing to send with; a second disable_all finds none.
    const allOff = await manage({ channel_id: id, action: 'disable_all_keys' });
    expect(allOff.body).toMatchObject({ success: true, message: '3 keys disabled' });
    const before = mock.requests.length;
    const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow();
    expect(mock.requests.length).toBe(before);
    expect(codeOf(await manage({ channel_id: id, action: 'disable_all_keys' }))).toBe(ErrorCode.MultiKeyNoneEnabled);
    expect((await manage({ channel_id: id, action: 'enable_all_keys' })).body).toMatchObject({
      success: true,
      message: '3 keys enabled',
    });

    // delete_key renumbers: the disabled state of a later key follows it.
    await manage({ channel_id: id, action: 'disable_key', key_index: 2 });
    expect((await manage({ channel_id: id, action: 'delete_key', key_index: 0 })).body.success).toBe(true);
    let ch = await get(id);
    expect(ch.channel_info).toMatchObject({ multi_key_size: 2, multi_key_status_list: { 1: 2 } });
    expect(await relayKeys(2)).toEqual([KEYS[1], KEYS[1]]);

    // Automatically disabled keys (an upstream 401) are what delete_disabled_keys removes; manual ones stay.
    await manage({ channel_id: id, action: 'enable_key', key_index: 1 });
    await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' });
    await ctx().channels.reportUpstreamError(ctx().channelCache.get(id)!, 0, 401, 'invalid key');
    await manage({ channel_id: id, action: 'disable_key', key_index: 1 });
    page = await status();
    expect(page).toMatchObject({ enabled_count: 0, manual_disabled_count: 1, auto_disabled_count: 1 });
    expect(page.keys[0]!.reason).toContain('invalid key');
    await manage({ channel_id: id, action: 'enable_key', key_index: 1 });
    const removed = await manage<number>({ channel_id: id, action: 'delete_disabled_keys' });
    expect(removed.body).toMatchObject({ success: true, data: 1 });
    ch = await get(id);
    expect(ch.channel_info).toMatchObject({ multi_key_size: 1, multi_key_status_list: {} });
    expect(await relayKeys(2)).toEqual([KEYS[2], KEYS[2]]);
    expect(codeOf(await manage({ channel_id: id, action: 'delete_disabled_keys' }))).toBe(
      ErrorCode.MultiKeyNoneAutoDisabled,
    );
    expect(codeOf(await manage({ channel_id: id, action: 'delete_key', key_index: 0 }))).toBe(
      ErrorCode.MultiKeyLastKey,
    );

    for (const a of answers) for (const k of KEYS) expect(JSON.stringify(a)).not.toContain(k);
    await root.call('DELETE', `/api/channel/${id}`);
  });

  it('refuses a missing or out-of-range index, a single-key channel and an unknown channel', async () => {
    const multi = await create({ name: 'multi-2', key: KEYS.slice(0, 2).join('\n') }, 'multi_to_single', {
      multi_key_mode: 'random',
    });
    const single = await create({ name: 'single', key: KEYS[0] });
    const cases: [Record<string, unknown>, string][] = [
      [{ channel_id: multi, action: 'disable_key' }, ErrorCode.MultiKeyIndexRequired],
      [{ channel_id: multi, action: 'enable_key', key_index: 2 }, ErrorCode.MultiKeyIndexOutOfRange],
      [{ channel_id: multi, action: 'delete_key', key_index: -1 }, ErrorCode.MultiKeyIndexOutOfRange],
      [{ channel_id: single, action: 'get_key_status' }, ErrorCode.MultiKeyNotMulti],
      [{ channel_id: 999_999, action: 'disable_all_keys' }, ErrorCode.ChannelNotFound],
    ];
    for (const [body, code] of cases) {
      const res = await manage(body);
      expect(res.status).toBe(200);
      expect(res.body.success, JSON.stringify(body)).toBe(false);
      expect(codeOf(res), JSON.stringify(body)).toBe(code);
    }
    expect((await manage({ channel_id: multi, action: 'rotate_keys' })).body.success).toBe(false);
    await root.call('POST', '/api/channel/batch', { ids: [multi, single] });
  });

  it("a tag's models: the models text of its channel that has the most; batch/tag null untags", async () => {
    const ids = [
      await create({ name: 't1', key: 'sk-t1', models: 'a,b', tag: 'team' }),
      await create({ name: 't2', key: 'sk-t2', models: 'a,b,c', tag: 'team' }),
      await create({ name: 't3', key: 'sk-t3', models: 'x,y,z,w', tag: 'other' }),
    ];
    const res = await root.call<string>('GET', '/api/channel/tag/models?tag=team');
    expect(res.body).toMatchObject({ success: true, data: 'a,b,c' });
    expect((await root.call<string>('GET', '/api/channel/tag/models?tag=nobody')).body.data).toBe('');
    expect(codeOf(await root.call('GET', '/api/channel/tag/models?tag='))).toBe(ErrorCode.TagRequired);
    // batch/tag with tag null (new-api's call) removes the tag: the tag has no models left.
    expect((await root.call('POST', '/api/channel/batch/tag', { ids: [ids[1]], tag: null })).body.data).toBe(1);
    expect((await get(ids[1]!)).tag).toBe('');
    expect((await root.call<string>('GET', '/api/channel/tag/models?tag=team')).body.data).toBe('a,b');
    await root.call('POST', '/api/channel/batch', { ids });
  });

  it("Ollama: version, pull, streamed pull and delete against the channel's server (its own address, as the relay)", async () => {
    const id = await create({
      name: 'ollama',
      type: ChannelType.Ollama,
      key: 'ollama-secret-key-123',
      models: 'llama3.2',
      base_url: ollama.url,
    });
    // The channel's own address, as the relay calls it: an Ollama on this host needs no fetch setting.
    expect((await root.call('GET', `/api/channel/ollama/version/${id}`)).body).toMatchObject({
      success: true,
      data: { version: OLLAMA_VERSION },
    });
    expect(ollama.seen.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/version',
      auth: 'Bearer ollama-secret-key-123',
    });

    const pulled = await root.call('POST', '/api/channel/ollama/pull', { channel_id: id, model_name: 'qwen3:0.6b' });
    expect(pulled.body).toMatchObject({ success: true, message: 'Model qwen3:0.6b pulled successfully' });
    expect(ollama.seen.at(-1)!.body).toEqual({ model: 'qwen3:0.6b', stream: false });
    expect(ollama.models.has('qwen3:0.6b')).toBe(true);
    const missing = await root.call('POST', '/api/channel/ollama/pull', { channel_id: id, model_name: MISSING_MODEL });
    expect(missing.body.success).toBe(false);
    expect(missing.body.message).toContain('file does not exist');

    const stream = await root.call('POST', '/api/channel/ollama/pull/stream', { channel_id: id, model_name: 'phi4' });
    expect(stream.raw.headers['content-type']).toContain('text/event-stream');
    const events = stream.raw.body
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const parsed = events.slice(0, -1).map((e) => JSON.parse(e) as Record<string, unknown>);
    expect(parsed[0]).toEqual({ status: 'pulling manifest' });
    expect(parsed.filter((p) => p.completed !== undefined).map((p) => p.completed)).toEqual([0, 1000, 2000]);
    expect(parsed.find((p) => p.total)).toMatchObject({ total: 2000, digest: expect.stringMatching(/^sha256:/) });
    expect(parsed.at(-1)).toEqual({ message: 'Model phi4 pulled successfully' });
    expect(ollama.seen.at(-1)!.body).toEqual({ model: 'phi4', stream: true });
    const failing = await root.call('POST', '/api/channel/ollama/pull/stream', {
      channel_id: id,
      model_name: MISSING_MODEL,
    });
    const last = failing.raw.body.split('\n\n').filter(Boolean).slice(-2);
    expect(last[1]).toBe('data: [DONE]');
    expect(JSON.parse(last[0]!.replace(/^data: /, ''))).toEqual({ error: 'pull model manifest: file does not exist' });

    const deleted = await root.call('DELETE', '/api/channel/ollama/delete', { channel_id: id, model_name: 'phi4' });
    expect(deleted.body).toMatchObject({ success: true, message: 'Model phi4 deleted successfully' });
    expect(ollama.models.has('phi4')).toBe(false);
    const again = await root.call('DELETE', '/api/channel/ollama/delete', { channel_id: id, model_name: 'phi4' });
    expect(again.body.success).toBe(false);
    expect(again.body.message).toContain("model 'phi4' not found");

    // Another type of channel is refused before anything is sent; no answer carries the key.
    const other = await create({ name: 'not-ollama', key: KEYS[0], base_url: ollama.url });
    const seen = ollama.seen.length;
    for (const res of [
      await root.call('GET', `/api/channel/ollama/version/${other}`),
      await root.call('POST', '/api/channel/ollama/pull', { channel_id: other, model_name: 'x' }),
      await root.call('POST', '/api/channel/ollama/pull/stream', { channel_id: other, model_name: 'x' }),
      await root.call('DELETE', '/api/channel/ollama/delete', { channel_id: other, model_name: 'x' }),
    ])
      expect(codeOf(res)).toBe(ErrorCode.OllamaOnly);
    expect(ollama.seen.length).toBe(seen);
    for (const s of [pulled, missing, stream, failing, deleted, again])
      expect(s.raw.body).not.toContain('ollama-secret-key-123');
    await root.call('POST', '/api/channel/batch', { ids: [id, other] });
  });

  it('every route is for administrators: a plain user is refused and nothing changes', async () => {
    const id = await create({ name: 'guarded', key: KEYS.join('\n') }, 'multi_to_single', {
      multi_key_mode: 'random',
    });
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/channel/multi_key/manage', { channel_id: id, action: 'disable_all_keys' }],
      ['POST', '/api/channel/multi_key/manage', { channel_id: id, action: 'get_key_status' }],
      ['GET', '/api/channel/tag/models?tag=team'],
      ['POST', '/api/channel/ollama/pull', { channel_id: id, model_name: 'x' }],
      ['POST', '/api/channel/ollama/pull/stream', { channel_id: id, model_name: 'x' }],
      ['DELETE', '/api/channel/ollama/delete', { channel_id: id, model_name: 'x' }],
      ['GET', `/api/channel/ollama/version/${id}`],
    ];
    for (const [method, url, body] of calls) {
      const res = await plain.call(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.success).toBe(false);
    }
    expect((await get(id)).channel_info.multi_key_status_list).toEqual({});
    await root.call('DELETE', `/api/channel/${id}`);
  });
});
