import { ChannelType } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';

interface ModelMeta {
  id: number;
  model_name: string;
  vendor_id: number;
  endpoints: string;
  status: number;
  bound_channels: { name: string; type: number }[];
  enable_groups: string[];
  quota_types: number[];
}
interface MetaPage {
  items: ModelMeta[];
  total: number;
  page: number;
  page_size: number;
  vendor_counts: Record<string, number>;
}
const TEXT = ['openai', 'openai-response', 'anthropic', 'gemini'];
const CLAUDE_TEXT = ['anthropic', 'openai', 'openai-response', 'gemini'];
const ANTHROPIC_VENDOR = 2;
const OPENAI_VENDOR = 1;

/** new-api's console model list (/api/models/) beside Tollway's type map (/api/models), and its pricing fields. */
describe.each(dialects)('new-api model list and pricing fields on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    user = await createUserClient(t.app, root, 'meta-user');
    const base = 'http://127.0.0.1:9';
    await addChannel(root, {
      name: 'oa',
      key: 'sk-oa',
      baseUrl: base,
      models: 'gpt-4o,text-embedding-3-small,house-model',
      group: 'default,vip',
    });
    await addChannel(root, {
      name: 'claude',
      key: 'sk-cl',
      baseUrl: base,
      models: 'claude-3-5-haiku-20241022',
      type: ChannelType.Anthropic,
    });
    const off = await addChannel(root, {
      name: 'off',
      key: 'sk-off',
      baseUrl: base,
      models: 'retired-model',
      type: ChannelType.DeepSeek,
    });
    expect((await root.call('PUT', '/api/channel/', { id: off, status: 2 })).body.success).toBe(true);
    await t.runtime.ctx.channelCache.reload();
  });
  afterAll(async () => t?.close());

  const meta = async (url: string) => {
    const res = await root.call<MetaPage>('GET', url);
    expect(res.body.success, `${url}: ${res.body.message}`).toBe(true);
    return res.body.data!;
  };

  it('/api/models stays the channel-type map; /api/models/ is the paged model list', async () => {
    const map = await root.call<Record<string, string[]>>('GET', '/api/models');
    expect(map.body.data![String(ChannelType.Anthropic)]).toEqual(
      expect.arrayContaining(['claude-3-5-haiku-20241022']),
    );
    expect(map.body.data).not.toHaveProperty('items');

    const page = await meta('/api/models/?p=1&page_size=3');
    expect(page).toMatchObject({ page: 1, page_size: 3, total: 5 });
    expect(page.items.map((m) => m.model_name)).toEqual(['claude-3-5-haiku-20241022', 'gpt-4o', 'house-model']);
    expect(page.vendor_counts).toMatchObject({ [OPENAI_VENDOR]: 2, [ANTHROPIC_VENDOR]: 1 });
    const second = await meta('/api/models/?p=2&page_size=3');
    expect(second.items.map((m) => m.model_name)).toEqual(['retired-model', 'text-embedding-3-small']);

    const byName = Object.fromEntries([...page.items, ...second.items].map((m) => [m.model_name, m]));
    expect(byName['gpt-4o']).toMatchObject({
      vendor_id: OPENAI_VENDOR,
      status: 1,
      enable_groups: ['default', 'vip'],
      quota_types: [0],
    });
    expect(JSON.parse(byName['gpt-4o']!.endpoints)).toEqual(TEXT);
    expect(byName['gpt-4o']!.bound_channels).toEqual([{ name: 'oa', type: ChannelType.OpenAI }]);
    expect(JSON.parse(byName['claude-3-5-haiku-20241022']!.endpoints)).toEqual(CLAUDE_TEXT);
    expect(byName['claude-3-5-haiku-20241022']!.vendor_id).toBe(ANTHROPIC_VENDOR);
    expect(JSON.parse(byName['text-embedding-3-small']!.endpoints)).toEqual(['embeddings']);
    // A model of no known family belongs to its channel's type; one served by a disabled channel only is off.
    expect(byName['retired-model']).toMatchObject({ status: 0, bound_channels: [], enable_groups: [] });
    expect(byName['house-model']!.vendor_id).not.toBe(byName['retired-model']!.vendor_id);
  });

  it('/api/models/search filters by keyword, vendor and status', async () => {
    expect((await meta('/api/models/search?keyword=GPT')).items.map((m) => m.model_name)).toEqual(['gpt-4o']);
    expect((await meta(`/api/models/search?vendor=${ANTHROPIC_VENDOR}`)).items.map((m) => m.model_name)).toEqual([
      'claude-3-5-haiku-20241022',
    ]);
    expect((await meta('/api/models/search?vendor=anthrop')).total).toBe(1);
    expect((await meta('/api/models/search?status=0')).items.map((m) => m.model_name)).toEqual(['retired-model']);
    expect(await meta('/api/models/search?keyword=nothing-like-this')).toMatchObject({ items: [], total: 0 });
    const bad = await root.call('GET', '/api/models/search?page_size=0');
    expect(bad.body.success).toBe(false);
  });

  it('the model lists are for administrators', async () => {
    for (const url of ['/api/models', '/api/models/', '/api/models/search']) {
      expect((await user.call('GET', url)).body.success, url).toBe(false);
      expect((await new Client(t.app).call('GET', url)).body.success, url).toBe(false);
    }
  });

  it('/api/pricing carries vendors and endpoint types beside its own fields', async () => {
    const body = (await new Client(t.app).call('GET', '/api/pricing')).body as unknown as {
      data: {
        model_name: string;
        vendor_id: number;
        supported_endpoint_types: string[];
        quota_type: number;
        enable_groups: string[];
      }[];
      vendors: { id: number; name: string; icon: string }[];
      supported_endpoint: Record<string, { path: string; method: string }>;
      group_ratio: Record<string, number>;
      usable_group: Record<string, string>;
      auto_groups: string[];
    };
    const rows = Object.fromEntries(body.data.map((m) => [m.model_name, m]));
    expect(Object.keys(rows).sort()).toEqual([
      'claude-3-5-haiku-20241022',
      'gpt-4o',
      'house-model',
      'text-embedding-3-small',
    ]);
    expect(rows['gpt-4o']).toMatchObject({
      vendor_id: OPENAI_VENDOR,
      supported_endpoint_types: TEXT,
      quota_type: 0,
      enable_groups: ['default', 'vip'],
    });
    expect(rows['claude-3-5-haiku-20241022']).toMatchObject({
      vendor_id: ANTHROPIC_VENDOR,
      supported_endpoint_types: CLAUDE_TEXT,
    });
    expect(body.vendors.map((v) => v.id)).toEqual(
      expect.arrayContaining([OPENAI_VENDOR, ANTHROPIC_VENDOR, rows['house-model']!.vendor_id]),
    );
    expect(body.vendors.find((v) => v.id === ANTHROPIC_VENDOR)).toMatchObject({ name: 'Anthropic' });
    expect(body.supported_endpoint).toMatchObject({
      openai: { path: '/v1/chat/completions', method: 'POST' },
      anthropic: { path: '/v1/messages', method: 'POST' },
      embeddings: { path: '/v1/embeddings', method: 'POST' },
    });
    expect(body).toMatchObject({ group_ratio: { default: 1 }, usable_group: { default: 'default' }, auto_groups: [] });
  });
});
