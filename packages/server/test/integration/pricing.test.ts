import { defaultCacheRatio, defaultCompletionRatio, defaultModelPrice, defaultModelRatio } from '@tollway/shared';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelsTable } from '../../src/db/schema.js';
import type { PricingModel } from '../../src/modules/pricing/service.js';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';

interface PricingBody {
  success: boolean;
  message: string;
  data: PricingModel[];
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
  vendors: { id: number; name: string }[];
  supported_endpoint: Record<string, { path: string; method: string }>;
  auto_groups: string[];
  pricing_version: string;
}

describe.each(dialects)('pricing page and ratio reset on %s', (dialect) => {
  let t: TestApp;
  let root: Client;
  let user: Client;

  /** A channel and its abilities written directly (the channel API is another module's). */
  async function addChannel(id: number, name: string, groups: string[], models: string[], status = 1) {
    const k = t.runtime.ctx.db.kysely;
    const channel: Insertable<ChannelsTable> = {
      id,
      type: 1,
      key: `sk-${name}`,
      openai_organization: '',
      test_model: '',
      status,
      name,
      weight: 0,
      created_time: 0,
      test_time: 0,
      response_time: 0,
      base_url: '',
      other: '',
      balance: 0,
      balance_updated_time: 0,
      models: models.join(','),
      group: groups.join(','),
      used_quota: 0,
      model_mapping: '',
      status_code_mapping: '',
      priority: 0,
      auto_ban: 1,
      other_info: '',
      tag: '',
      setting: '',
      param_override: '',
      system_prompt: '',
      max_input_tokens: 0,
      model_prefix: '',
      expired_time: 0,
      channel_info: '',
      settings: '',
      header_override: '',
      remark: '',
    };
    await k.insertInto('channels').values(channel).execute();
    const abilities = groups.flatMap((group) =>
      models.map((model) => ({ group, model, channel_id: id, enabled: 1, priority: 0, weight: 0, tag: '' })),
    );
    await k.insertInto('abilities').values(abilities).execute();
  }

  beforeAll(async () => {
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    user = await createUserClient(t.app, root, 'price-user');
    await addChannel(901, 'one', ['default', 'vip'], ['gpt-4o', 'dall-e-3', 'mystery-model']);
    await addChannel(902, 'two', ['vip'], ['gpt-4o-mini']);
    await addChannel(903, 'special', ['special'], ['special-model']);
    await addChannel(904, 'off', ['default'], ['disabled-model'], 2);
    await t.runtime.ctx.channelCache.reload();
  });
  afterAll(async () => t?.close());

  const pricing = async (c: Client) => {
    const res = await c.call('GET', '/api/pricing');
    expect(res.status).toBe(200);
    return res.body as unknown as PricingBody;
  };
  const byName = (b: PricingBody) => Object.fromEntries(b.data.map((m) => [m.model_name, m]));

  it('works logged out: routable models with ratio or fixed price, groups that serve them, the default group', async () => {
    const body = await pricing(new Client(t.app));
    expect(body.success).toBe(true);
    expect(Object.keys(body).sort()).toEqual([
      'auto_groups',
      'data',
      'group_ratio',
      'message',
      'pricing_version',
      'success',
      'supported_endpoint',
      'usable_group',
      'vendors',
    ]);
    expect(body.data.map((m) => m.model_name)).toEqual([
      'dall-e-3',
      'gpt-4o',
      'gpt-4o-mini',
      'mystery-model',
      'special-model',
    ]);
    const m = byName(body);
    expect(m['gpt-4o']).toEqual({
      model_name: 'gpt-4o',
      quota_type: 0,
      model_ratio: defaultModelRatio['gpt-4o'],
      completion_ratio: defaultCompletionRatio['gpt-4o'],
      model_price: 0,
      enable_groups: ['default', 'vip'],
      // No registry entry (modules/model-registry): no metadata, a guessed vendor with a negative id.
      description: '',
      icon: '',
      tags: '',
      vendor_id: -1,
      supported_endpoint_types: ['openai', 'openai-response', 'anthropic', 'gemini'],
      // new-api's fields: the configured cache-read ratio, no owner.
      cache_ratio: defaultCacheRatio['gpt-4o'],
      owner_by: '',
    });
    expect(m['dall-e-3']).toEqual({
      model_name: 'dall-e-3',
      quota_type: 1,
      model_ratio: 0,
      completion_ratio: 0,
      model_price: defaultModelPrice['dall-e-3'],
      enable_groups: ['default', 'vip'],
      description: '',
      icon: '',
      tags: '',
      vendor_id: -1,
      supported_endpoint_types: ['image-generation'],
      owner_by: '',
    });
    expect(body.pricing_version).toBe('a42d372ccf0b5dd13ecf71203521f9d2');
    expect(m['gpt-4o-mini']!.enable_groups).toEqual(['vip']);
    // No price at all: ratio 0 (the relay refuses it unless self-use mode or the user's accept-unset setting).
    expect(m['mystery-model']).toMatchObject({ quota_type: 0, model_ratio: 0, completion_ratio: 1, model_price: 0 });
    // Served only in a group the caller cannot use.
    expect(m['special-model']!.enable_groups).toEqual([]);
    expect(body.group_ratio).toEqual({ default: 1, vip: 1 });
    expect(body.usable_group).toEqual({ default: 'default', vip: 'vip' });
  });

  it('a logged-in caller sees their own group and its ratio', async () => {
    await root.call('PUT', '/api/user/', { id: user.userId, group: 'special' });
    await root.call('PUT', '/api/option/', {
      key: 'GroupRatio',
      value: JSON.stringify({ default: 1, vip: 1.5, svip: 2, special: 0.5 }),
    });
    const body = await pricing(user);
    expect(body.usable_group).toEqual({ default: 'default', vip: 'vip', special: 'special' });
    expect(body.group_ratio).toEqual({ default: 1, vip: 1.5, special: 0.5 });
    expect(byName(body)['special-model']!.enable_groups).toEqual(['special']);
    const anon = await pricing(new Client(t.app));
    expect(anon.group_ratio).toEqual({ default: 1, vip: 1.5 });
    expect(byName(anon)['special-model']!.enable_groups).toEqual(['special']);
  });

  it('follows price changes: a fixed price wins over ratios', async () => {
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'gpt-4o': 0.25 }) });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ 'mystery-model': 3, 'gpt-4o': 9 }),
    });
    await root.call('PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify({ 'mystery-model': 2 }) });
    const m = byName(await pricing(user));
    expect(m['gpt-4o']).toMatchObject({ quota_type: 1, model_price: 0.25, model_ratio: 0 });
    expect(m['mystery-model']).toMatchObject({ quota_type: 0, model_ratio: 3, completion_ratio: 2, model_price: 0 });
    expect(m['dall-e-3']).toMatchObject({ quota_type: 0, model_ratio: 0 });
  });

  it('root and administrators (who edit the ratios) reset the four pricing tables to the shipped defaults', async () => {
    const admin = await createUserClient(t.app, root, 'price-admin', 10);
    expect((await user.call('POST', '/api/option/rest_model_ratio')).status).toBe(403);
    expect((await admin.call('POST', '/api/option/rest_model_ratio')).body).toEqual({
      success: true,
      message: 'model ratios reset',
    });
    const res = await root.call('POST', '/api/option/rest_model_ratio');
    expect(res.body).toEqual({ success: true, message: 'model ratios reset' });
    const o = t.runtime.ctx.options;
    expect(o.json('ModelRatio')).toEqual(defaultModelRatio);
    expect(o.json('CompletionRatio')).toEqual(defaultCompletionRatio);
    expect(o.json('CacheRatio')).toEqual(defaultCacheRatio);
    expect(o.json('ModelPrice')).toEqual(defaultModelPrice);
    const stored = await t.runtime.ctx.db.kysely
      .selectFrom('options')
      .select(['key', 'value'])
      .where('key', 'in', ['ModelRatio', 'ModelPrice'])
      .execute();
    expect(Object.fromEntries(stored.map((r) => [r.key, JSON.parse(r.value)]))).toEqual({
      ModelRatio: defaultModelRatio,
      ModelPrice: defaultModelPrice,
    });
    // GroupRatio is not a pricing table: untouched.
    expect(o.json('GroupRatio')).toEqual({ default: 1, vip: 1.5, svip: 2, special: 0.5 });
    const m = byName(await pricing(user));
    expect(m['gpt-4o']).toMatchObject({ quota_type: 0, model_ratio: defaultModelRatio['gpt-4o'] });
    expect(m['dall-e-3']).toMatchObject({ quota_type: 1, model_price: defaultModelPrice['dall-e-3'] });
  });
});
