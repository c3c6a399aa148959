import { ChannelType, ErrorCode } from '@tollway/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, type CallResult } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { expectRefused } from '../support/refusal.js';

interface Vendor {
  id: number;
  name: string;
  description: string;
  icon: string;
  status: number;
  model_count: number;
}
interface Model {
  id: number;
  model_name: string;
  description: string;
  icon: string;
  tags: string;
  vendor_id: number;
  endpoints: string;
  status: number;
  sync_official: number;
  name_rule: number;
  bound_channels: { name: string; type: number }[];
  enable_groups: string[];
  quota_types: number[];
  matched_models?: string[];
  matched_count?: number;
}
interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
  vendor_counts?: Record<string, number>;
}
interface PricingRow {
  model_name: string;
  vendor_id: number;
  description: string;
  icon: string;
  tags: string;
  supported_endpoint_types: string[];
  quota_type: number;
  enable_groups: string[];
}
interface PricingAnswer {
  success: boolean;
  data: PricingRow[];
  vendors: { id: number; name: string; icon: string; description: string }[];
  supported_endpoint: Record<string, { path: string; method: string }>;
  group_ratio: Record<string, number>;
}

const ok = <T>(res: CallResult<T>): T => {
  expect(res.body.success, res.body.message).toBe(true);
  return res.body.data as T;
};

/** new-api's model management: vendors, registry entries and their name rules, missing models, the pricing page. */
describe.each(dialects)('model registry on %s', (dialect) => {
  const app = useApp(dialect, { admins: ['registry-admin'], users: ['registry-user'] });
  let admin: Client;
  beforeAll(async () => {
    admin = app.admins[0]!;
    const base = 'http://127.0.0.1:9';
    await addChannel(app.root, {
      name: 'reg-a',
      key: 'sk-a',
      baseUrl: base,
      models: 'gpt-4o,gpt-4o-mini,deepseek-chat,my-llama-3,qwen-max,text-embedding-3-small',
      group: 'default,vip',
    });
    const off = await addChannel(app.root, {
      name: 'reg-off',
      key: 'sk-off',
      baseUrl: base,
      models: 'retired-model',
      type: ChannelType.DeepSeek,
    });
    ok(await app.root.call('PUT', '/api/channel/', { id: off, status: 2 }));
    await app.t.runtime.ctx.channelCache.reload();
  });

  const vendorIds: Record<string, number> = {};
  const modelIds: Record<string, number> = {};
  const addVendor = async (body: Record<string, unknown>) => {
    const v = ok(await admin.call<Vendor>('POST', '/api/vendors/', body));
    vendorIds[v.name] = v.id;
    return v;
  };
  const addModel = async (body: Record<string, unknown>) => {
    const m = ok(await admin.call<Model>('POST', '/api/models/', body));
    modelIds[m.model_name] = m.id;
    return m;
  };
  const pricing = async () =>
    (await new Client(app.t.app).call('GET', '/api/pricing')).body as unknown as PricingAnswer;

  it('creates, lists, searches, edits and deletes vendors, with clear refusals', async () => {
    const acme = await addVendor({ name: 'Acme', description: 'Acme Labs', icon: 'Acme.Color' });
    expect(acme).toMatchObject({
      name: 'Acme',
      description: 'Acme Labs',
      icon: 'Acme.Color',
      status: 1,
      model_count: 0,
    });
    await addVendor({ name: 'OpenAI', icon: 'OpenAI' });
    await addVendor({ name: 'Temporary' });

    const list = ok(await admin.call<Page<Vendor>>('GET', '/api/vendors/?p=1&page_size=2'));
    expect(list).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(list.items.map((v) => v.name)).toEqual(['Acme', 'OpenAI']);
    expect(ok(await admin.call<Page<Vendor>>('GET', '/api/vendors/?p=2&page_size=2')).items.map((v) => v.name)).toEqual(
      ['Temporary'],
    );
    const found = ok(await admin.call<Page<Vendor>>('GET', '/api/vendors/search?keyword=labs'));
    expect(found.items.map((v) => v.name)).toEqual(['Acme']);
    expect(ok(await admin.call<Vendor>('GET', `/api/vendors/${acme.id}`)).name).toBe('Acme');

    const dup = await admin.call('POST', '/api/vendors/', { name: 'Acme' });
    expectRefused(dup, 'duplicate', 'already exists');
    expect(dup.body).toMatchObject({ code: ErrorCode.VendorNameTaken, params: { name: 'Acme' } });
    expectRefused(await admin.call('POST', '/api/vendors/', { name: '  ' }), 'blank name', 'name');
    expectRefused(
      await admin.call('PUT', '/api/vendors/', { id: vendorIds.Temporary, name: 'OpenAI' }),
      'rename to taken',
    );
    expectRefused(await admin.call('GET', '/api/vendors/999999'), 'unknown', 'not found');

    const edited = ok(
      await admin.call<Vendor>('PUT', '/api/vendors/', { id: vendorIds.Temporary, description: 'soon gone' }),
    );
    expect(edited).toMatchObject({ name: 'Temporary', description: 'soon gone' });
    ok(await admin.call('DELETE', `/api/vendors/${vendorIds.Temporary}`));
    expectRefused(await admin.call('DELETE', `/api/vendors/${vendorIds.Temporary}`), 'deleted twice', 'not found');
  });

  it('creates registry entries with name rules and refuses bad input clearly', async () => {
    const gpt = await addModel({
      model_name: 'gpt-4o',
      description: 'exact gpt-4o',
      icon: 'OpenAI',
      tags: 'chat,fast',
      vendor_id: vendorIds.Acme,
      endpoints: JSON.stringify({ openai: '/v1/chat/completions', 'custom-x': { path: '/v1/x', method: 'put' } }),
    });
    expect(gpt).toMatchObject({ status: 1, sync_official: 1, name_rule: 0, vendor_id: vendorIds.Acme });
    await addModel({ model_name: 'gpt-', name_rule: 1, description: 'prefix gpt' });
    await addModel({ model_name: 'mini', name_rule: 2, description: 'contains mini' });
    await addModel({ model_name: '-chat', name_rule: 3, description: 'suffix chat' });
    await addModel({ model_name: 'seek', name_rule: 2, description: 'contains seek' });
    await addModel({ model_name: 'llama', name_rule: 2, description: 'contains llama', status: 0 });

    const dup = await admin.call('POST', '/api/models/', { model_name: 'gpt-4o' });
    expectRefused(dup, 'duplicate', 'already exists');
    expect(dup.body).toMatchObject({ code: ErrorCode.ModelNameTaken });
    expectRefused(await admin.call('POST', '/api/models/', { model_name: '' }), 'empty name', 'model_name');
    expectRefused(await admin.call('POST', '/api/models/', { model_name: 'x', name_rule: 7 }), 'bad rule', 'name_rule');
    const badJson = await admin.call('POST', '/api/models/', { model_name: 'x', endpoints: '[1,2]' });
    expectRefused(badJson, 'endpoints', 'endpoints');
    expect(badJson.body).toMatchObject({ code: ErrorCode.InputNotJsonObject });
    const noVendor = await admin.call('POST', '/api/models/', { model_name: 'x', vendor_id: 424242 });
    expectRefused(noVendor, 'vendor', 'vendor 424242 does not exist');
    expect(noVendor.body).toMatchObject({ code: ErrorCode.ModelVendorMissing });
    expectRefused(await admin.call('PUT', '/api/models/', { id: 999999, description: 'x' }), 'unknown', 'not found');
    expectRefused(await admin.call('PUT', '/api/models/', { description: 'no id' }), 'no id', 'id');
  });

  it('lists, searches and pages the registry with vendor counts and what the served models add', async () => {
    const first = ok(await admin.call<Page<Model>>('GET', '/api/models/?p=1&page_size=4'));
    expect(first).toMatchObject({ total: 6, page: 1, page_size: 4 });
    expect(first.items.map((m) => m.model_name)).toEqual(['llama', 'seek', '-chat', 'mini']);
    expect(first.vendor_counts).toEqual({ [vendorIds.Acme!]: 1, 0: 5 });
    const second = ok(await admin.call<Page<Model>>('GET', '/api/models/?p=2&page_size=4'));
    expect(second.items.map((m) => m.model_name)).toEqual(['gpt-', 'gpt-4o']);

    const search = async (q: string) =>
      ok(await admin.call<Page<Model>>('GET', `/api/models/search?${q}`)).items.map((m) => m.model_name);
    expect(await search('keyword=fast')).toEqual(['gpt-4o']);
    expect(await search('keyword=prefix')).toEqual(['gpt-']);
    expect(await search(`vendor=${vendorIds.Acme}`)).toEqual(['gpt-4o']);
    expect(await search('vendor=acm')).toEqual(['gpt-4o']);
    expect(await search('status=0')).toEqual(['llama']);
    expect(await search('keyword=100%25')).toEqual([]);

    const prefix = ok(await admin.call<Model>('GET', `/api/models/${modelIds['gpt-']}`));
    expect(prefix).toMatchObject({ matched_models: ['gpt-4o', 'gpt-4o-mini'], matched_count: 2 });
    expect(prefix.bound_channels).toEqual([{ name: 'reg-a', type: ChannelType.OpenAI }]);
    expect(prefix.enable_groups).toEqual(['default', 'vip']);
    expect(JSON.parse(prefix.endpoints)).toEqual(['openai', 'openai-response', 'anthropic', 'gemini']);
    // new-api's console saves the record it read, filled-in endpoint types included: taken as "the channels' own".
    const resaved = await admin.call('PUT', '/api/models/', { ...prefix });
    expect(resaved.body.success, resaved.body.message).toBe(true);
    const reread = ok(await admin.call<Model>('GET', `/api/models/${modelIds['gpt-']}`));
    expect(reread.description).toBe(prefix.description);
    expect(reread.tags).toBe(prefix.tags);
    expect(JSON.parse(reread.endpoints)).toEqual(['openai', 'openai-response', 'anthropic', 'gemini']);
    const stored = await app.t.database.db.kysely
      .selectFrom('models')
      .select('endpoints')
      .where('id', '=', modelIds['gpt-']!)
      .executeTakeFirstOrThrow();
    expect(stored.endpoints ?? '').toBe('');
    const exact = ok(await admin.call<Model>('GET', `/api/models/${modelIds['gpt-4o']}`));
    expect(exact.matched_models).toBeUndefined();
    expect(exact).toMatchObject({ quota_types: [0], bound_channels: [{ name: 'reg-a', type: ChannelType.OpenAI }] });
    expectRefused(await admin.call('GET', '/api/models/search?page_size=0'), 'page size');
  });

  it('lists as missing the served models no entry covers, by name rule (disabled channels left out)', async () => {
    expect(ok(await admin.call<string[]>('GET', '/api/models/missing'))).toEqual([
      'qwen-max',
      'text-embedding-3-small',
    ]);
  });

  it('puts registry metadata on the pricing page: exact before prefix, suffix and contains; disabled entries hide', async () => {
    const page = await pricing();
    const rows = Object.fromEntries(page.data.map((r) => [r.model_name, r]));
    expect(Object.keys(rows).sort()).toEqual([
      'deepseek-chat',
      'gpt-4o',
      'gpt-4o-mini',
      'qwen-max',
      'text-embedding-3-small',
    ]);
    expect(rows['gpt-4o']).toMatchObject({
      description: 'exact gpt-4o',
      icon: 'OpenAI',
      tags: 'chat,fast',
      vendor_id: vendorIds.Acme,
      supported_endpoint_types: ['openai', 'custom-x'],
      quota_type: 0,
      enable_groups: ['default', 'vip'],
    });
    expect(page.supported_endpoint['custom-x']).toEqual({ path: '/v1/x', method: 'PUT' });
    expect(rows['gpt-4o-mini']!.description).toBe('prefix gpt');
    expect(rows['deepseek-chat']!.description).toBe('suffix chat');
    // No entry: the vendor guessed from the name (or the channel's type) is the registry's vendor of that name.
    expect(rows['text-embedding-3-small']).toMatchObject({ description: '', vendor_id: vendorIds.OpenAI });
    expect(rows['qwen-max']!.vendor_id).toBe(vendorIds.OpenAI);
    expect(page.vendors.find((v) => v.id === vendorIds.Acme)).toMatchObject({ name: 'Acme', icon: 'Acme.Color' });
    expect(page.group_ratio).toMatchObject({ default: 1 });
  });

  it('changes status alone, edits fields, and a deleted vendor leaves its models without one', async () => {
    const id = modelIds['gpt-4o']!;
    const off = ok(
      await admin.call<Model>('PUT', '/api/models/?status_only=true', { id, status: 0, description: 'no' }),
    );
    expect(off).toMatchObject({ status: 0, description: 'exact gpt-4o' });
    // The exact entry is off: the prefix rule does not stand in for it, the model leaves the pricing page.
    expect((await pricing()).data.map((r) => r.model_name)).not.toContain('gpt-4o');
    const edited = ok(await admin.call<Model>('PUT', '/api/models/', { id, status: 1, tags: 'chat' }));
    expect(edited).toMatchObject({ status: 1, tags: 'chat', description: 'exact gpt-4o' });
    expectRefused(
      await admin.call('PUT', '/api/models/', { id, model_name: 'gpt-' }),
      'rename to taken',
      'already exists',
    );

    ok(await admin.call('DELETE', `/api/vendors/${vendorIds.Acme}`));
    expect(ok(await admin.call<Model>('GET', `/api/models/${id}`)).vendor_id).toBe(0);
    ok(await admin.call('DELETE', `/api/models/${modelIds['-chat']}`));
    expectRefused(await admin.call('GET', `/api/models/${modelIds['-chat']}`), 'deleted', 'not found');
    const rows = (await pricing()).data;
    expect(rows.find((r) => r.model_name === 'deepseek-chat')!.description).toBe('contains seek');
  });

  it('is for administrators only', async () => {
    const user = app.users[0]!;
    const anonymous = new Client(app.t.app);
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/vendors/'],
      ['GET', '/api/vendors/search?keyword=a'],
      ['GET', `/api/vendors/${vendorIds.OpenAI}`],
      ['POST', '/api/vendors/', { name: 'Nope' }],
      ['PUT', '/api/vendors/', { id: vendorIds.OpenAI, name: 'Nope' }],
      ['DELETE', `/api/vendors/${vendorIds.OpenAI}`],
      ['GET', '/api/models/'],
      ['GET', '/api/models/search'],
      ['GET', '/api/models/missing'],
      ['GET', '/api/models/sync_upstream/preview'],
      ['POST', '/api/models/sync_upstream', {}],
      ['GET', `/api/models/${modelIds['gpt-4o']}`],
      ['POST', '/api/models/', { model_name: 'nope' }],
      ['PUT', '/api/models/', { id: modelIds['gpt-4o'], description: 'nope' }],
      ['DELETE', `/api/models/${modelIds['gpt-4o']}`],
    ];
    for (const [method, url, body] of calls) {
      for (const caller of [user, anonymous]) {
        const res = await caller.call(method, url, body);
        expect(res.body.success, `${method} ${url}`).toBe(false);
      }
    }
    expect(ok(await admin.call<Vendor>('GET', `/api/vendors/${vendorIds.OpenAI}`)).name).toBe('OpenAI');
    expect(ok(await admin.call<Model>('GET', `/api/models/${modelIds['gpt-4o']}`)).description).toBe('exact gpt-4o');
  });
});
