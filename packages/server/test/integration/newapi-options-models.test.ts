import { ChannelType } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';

interface MetaPage {
  items: { model_name: string }[];
  total: number;
  page: number;
  page_size: number;
  vendor_counts: Record<string, number>;
}
const TEXT = ['openai', 'openai-response', 'anthropic', 'gemini'];
const CLAUDE_TEXT = ['anthropic', 'openai', 'openai-response', 'gemini'];
/** Vendors guessed for models the registry does not describe have negative ids (never a registry id). */
const ANTHROPIC_VENDOR = -2;
const OPENAI_VENDOR = -1;

/** new-api's console model registry (/api/models/) beside Tollway's type map (/api/models), and its pricing fields. */
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

  it('/api/models stays the channel-type map; /api/models/ is the model registry, served models are missing from it', async () => {
    const map = await root.call<Record<string, string[]>>('GET', '/api/models');
    expect(map.body.data![String(ChannelType.Anthropic)]).toEqual(
      expect.arrayContaining(['claude-3-5-haiku-20241022']),
    );
    expect(map.body.data).not.toHaveProperty('items');

    // The registry holds what administrators add or sync (modules/model-registry): empty at first.
    expect(await meta('/api/models/?p=1&page_size=3')).toMatchObject({ items: [], total: 0, page: 1, page_size: 3 });
    const missing = await root.call<string[]>('GET', '/api/models/missing');
    // Models of enabled channels only: retired-model's channel is disabled.
    expect(missing.body.data).toEqual(['claude-3-5-haiku-20241022', 'gpt-4o', 'house-model', 'text-embedding-3-small']);
    const bad = await root.call('GET', '/api/models/search?page_size=0');
    expect(bad.body.success).toBe(false);
  });

  it('the model lists are for administrators; the channel-type map is for any user, as new-api has it', async () => {
    expect((await user.call('GET', '/api/models')).body.success).toBe(true);
    expect((await new Client(t.app).call('GET', '/api/models')).body.success).toBe(false);
    for (const url of ['/api/models/', '/api/models/search', '/api/models/missing', '/api/vendors/']) {
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
