import crypto from 'node:crypto';
import type { ChannelPublic, ChannelTagRow } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { revealChannelKey } from '../support/channel-key.js';
import { makeServiceAccount } from '../support/mock-vertex.js';
import { expectRefused } from '../support/refusal.js';

type Page<T = ChannelPublic> = { items: T[]; page: number; total: number };

const KEY = 'sk-test-0123456789abcdefghijklmnop';

describe.each(dialects)('channels: create, validate, list and delete on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));

  const create = (channel: Record<string, unknown>, mode = 'single', extra: Record<string, unknown> = {}) =>
    root.call<{ ids: number[] }>('POST', '/api/channel/', { mode, channel, ...extra });
  const abilities = (channelId: number) =>
    t.runtime.ctx.db.kysely
      .selectFrom('abilities')
      .selectAll()
      .where('channel_id', '=', channelId)
      .orderBy('group')
      .orderBy('model')
      .execute();
  const clear = async () => {
    const all = await t.runtime.ctx.db.kysely.selectFrom('channels').select('id').execute();
    if (all.length) await root.call('POST', '/api/channel/batch', { ids: all.map((c) => c.id) });
  };

  it('creates a single channel with defaults, its abilities, and the routing cache sees it', async () => {
    const res = await create({
      name: 'one',
      key: KEY,
      models: 'gpt-4o, gpt-4o-mini',
      group: 'default,vip',
      base_url: 'https://up.example.com/',
      priority: '5',
      weight: 3,
    });
    expect(res.body).toMatchObject({ success: true, message: 'channel created' });
    const id = res.body.data!.ids[0]!;
    const got = await root.call<ChannelPublic>('GET', `/api/channel/${id}`);
    expect(got.body.data).toMatchObject({
      id,
      name: 'one',
      type: 1,
      base_url: 'https://up.example.com',
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default,vip',
      priority: 5,
      weight: 3,
      auto_ban: 1,
      status: 1,
    });
    expect(got.body.data!.channel_info).toMatchObject({ is_multi_key: false, multi_key_size: 1 });
    expect(await revealChannelKey(root, id)).toBe(KEY);
    const rows = await abilities(id);
    expect(rows.map((a) => `${a.group}/${a.model}`)).toEqual([
      'default/gpt-4o',
      'default/gpt-4o-mini',
      'vip/gpt-4o',
      'vip/gpt-4o-mini',
    ]);
    expect(rows.every((a) => a.enabled === 1 && Number(a.priority) === 5 && a.weight === 3)).toBe(true);
    const cache = t.runtime.ctx.channelCache;
    expect(cache.modelsForGroup('vip')).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(cache.select('default', 'gpt-4o', new Set(), 0)?.id).toBe(id);
    const user = await createUserClient(t.app, root, 'model-user');
    expect((await user.call<string[]>('GET', '/api/user/models')).body.data).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect((await root.call<string[]>('GET', '/api/channel/models_enabled')).body.data).toEqual([
      'gpt-4o',
      'gpt-4o-mini',
    ]);
  });

  it('batch creates one channel per key line; multi_to_single keeps all keys in one channel', async () => {
    await clear();
    const batch = await create(
      {
        name: 'batch',
        key: 'k-aaaaaaaaaaaaaaaaaaaa\nk-bbbbbbbbbbbbbbbbbbbb\n\nk-cccccccccccccccccccc',
        models: ['m1'],
      },
      'batch',
    );
    expect(batch.body.data!.ids).toHaveLength(3);
    const keys = await Promise.all(batch.body.data!.ids.map((id) => revealChannelKey(root, id)));
    expect(keys).toEqual(['k-aaaaaaaaaaaaaaaaaaaa', 'k-bbbbbbbbbbbbbbbbbbbb', 'k-cccccccccccccccccccc']);
    const multi = await create(
      { name: 'multi', key: 'k-1111111111111111\nk-2222222222222222', models: 'm2' },
      'multi_to_single',
      { multi_key_mode: 'polling' },
    );
    const id = multi.body.data!.ids[0]!;
    const got = (await root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
    expect(await revealChannelKey(root, id)).toBe('k-1111111111111111\nk-2222222222222222');
    expect(got.channel_info).toMatchObject({
      is_multi_key: true,
      multi_key_size: 2,
      multi_key_mode: 'polling',
      multi_key_status_list: {},
    });
    const cached = t.runtime.ctx.channelCache.get(id)!;
    expect(cached).toMatchObject({
      multiKey: true,
      multiKeyMode: 'polling',
      keys: ['k-1111111111111111', 'k-2222222222222222'],
    });
    // Appending keys keeps the old ones; replacing resets them.
    await root.call('PUT', '/api/channel/', { id, key: 'k-3333333333333333', key_mode: 'append' });
    expect(t.runtime.ctx.channelCache.get(id)!.keys).toHaveLength(3);
    await root.call('PUT', '/api/channel/', { id, key: 'k-4444444444444444' });
    expect(t.runtime.ctx.channelCache.get(id)!.keys).toEqual(['k-4444444444444444']);
  });

  it('refuses invalid channels with messages naming the problem', async () => {
    const ecKey = crypto
      .generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '', key: KEY, models: 'm' }, 'please fill in the channel name and key'],
      [{ name: 'x', key: '  ', models: 'm' }, 'please fill in the channel name and key'],
      [{ name: 'x', key: KEY, models: '' }, 'at least one model is required'],
      [{ name: 'x', key: KEY, models: 'm', group: ' , ' }, 'at least one group is required'],
      [{ name: 'x', key: KEY, models: 'm', model_mapping: '{bad' }, 'model_mapping must be a valid JSON object'],
      [{ name: 'x', key: KEY, models: 'm', setting: '[1]' }, 'setting must be a valid JSON object'],
      [{ name: 'x', key: KEY, models: 'm', param_override: 'null' }, 'param_override must be a valid JSON object'],
      [
        { name: 'x', key: KEY, models: 'm', status_code_mapping: 'x' },
        'status_code_mapping must be a valid JSON object',
      ],
      [{ name: 'x', key: KEY, models: 'm', model_mapping: '{"a":"b","b":"a"}' }, 'model mapping has a cycle'],
      [{ name: 'x', key: KEY, models: 'm', type: 99 }, 'type must be a known channel type id'],
      [{ name: 'x', key: KEY, models: 'm', priority: -1000 }, 'priority must be -999 or more'],
      [{ name: 'x', key: KEY, models: 'm', priority: 1.5 }, 'priority must be an integer'],
      [{ name: 'x', key: KEY, models: 'm', weight: -1 }, 'weight must be a non-negative integer'],
      [{ name: 'x', key: KEY, models: 'm', base_url: 'ftp://x' }, 'base_url must start with http:// or https://'],
      [
        { name: 'x', key: 'only-one-part', models: 'm', type: 15 },
        'channel type 15 needs the key format APIKey|SecretKey',
      ],
      [{ name: 'x', key: 'a|b', models: 'm', type: 18 }, 'APPID|APISecret|APIKey'],
      [{ name: 'x', key: 'nodash', models: 'm', type: 22 }, 'APIKey-AppId'],
      [{ name: 'x', key: 'a|b', models: 'm', type: 23 }, 'AppId|SecretId|SecretKey'],
      [{ name: 'x', key: 'ak|sk', models: 'm', type: 33 }, 'Ak|Sk|Region'],
      [
        { name: 'x', key: 'k', models: 'm', type: 41, other: '{not json' },
        'for type 41 the region must be plain text or a valid JSON object',
      ],
      [{ name: 'x', key: 'not json', models: 'm', type: 41 }, 'key: Vertex AI key must be a service account JSON key'],
      [
        { name: 'x', key: '{"type":"service_account"}', models: 'm', type: 41 },
        'key: Vertex AI service account key lacks client_email, private_key, project_id',
      ],
      [
        {
          name: 'x',
          key: JSON.stringify({ client_email: 'a@p', project_id: 'p', private_key: 'not a pem' }),
          models: 'm',
          type: 41,
        },
        'private_key is not a PEM private key',
      ],
      [
        {
          name: 'x',
          key: JSON.stringify({ client_email: 'a@p', project_id: 'p', private_key: ecKey }),
          models: 'm',
          type: 41,
        },
        'private_key must be an RSA key, not ec',
      ],
      [{ name: 'x', key: 'k1\nk2', models: 'm' }, 'use batch or multi_to_single mode'],
    ];
    for (const [channel, message] of cases) {
      const res = await create(channel);
      expectRefused(res, JSON.stringify(channel));
      expect(res.body.message, JSON.stringify(channel)).toContain(message);
    }
    expect(
      (await create({ name: 'x', key: 'k1\nk2', models: 'm', type: 41 }, 'multi_to_single')).body.message,
    ).toContain('not available for channel type 41');
  });

  it('normalises by type: 18 defaults other to v2.1, 41 accepts a plain region, good key formats pass', async () => {
    const spark = await create({ name: 'spark', key: 'app|secret|key', models: 'spark', type: 18 });
    expect((await root.call<ChannelPublic>('GET', `/api/channel/${spark.body.data!.ids[0]}`)).body.data!.other).toBe(
      'v2.1',
    );
    expect(
      (
        await create({
          name: 'vertex',
          key: makeServiceAccount('p', 'https://oauth2.googleapis.com/token').keyText,
          models: 'gemini',
          type: 41,
          other: 'us-central1',
        })
      ).body.success,
    ).toBe(true);
    expect(
      (await create({ name: 'fastgpt', key: 'fastgpt-key-with-dash-appid', models: 'm', type: 22 })).body.success,
    ).toBe(true);
    expect((await create({ name: 'bedrock', key: 'ak|sk|us-east-1', models: 'm', type: 33 })).body.success).toBe(true);
  });

  it('lists with masked keys, sorts by priority or id, pages, filters and searches', async () => {
    await clear();
    const mk = async (name: string, priority: number, extra: Record<string, unknown> = {}) =>
      (await create({ name, key: `${name}-secret-key-abcdefghijklmnop`, models: 'gpt-4o', priority, ...extra })).body
        .data!.ids[0]!;
    const a = await mk('alpha', 0, { base_url: 'https://alpha.example.com' });
    const b = await mk('beta', 10, { group: 'vip' });
    const c = await mk('gamma', 5, { models: 'claude-x' });
    const list = (await root.call<Page>('GET', '/api/channel/?p=1&page_size=10')).body.data!;
    expect(list.total).toBe(3);
    expect(list.items.map((i) => i.id)).toEqual([b, c, a]);
    for (const item of list.items) {
      expect(item.key).not.toContain('secret');
      expect(item.key).toMatch(/^.{3}\*{8}.{4}$/);
    }
    const byId = (await root.call<Page>('GET', '/api/channel/?p=1&page_size=2&id_sort=true')).body.data!;
    expect(byId.items.map((i) => i.id)).toEqual([c, b]);
    expect(
      (await root.call<Page>('GET', '/api/channel/?p=2&page_size=2&id_sort=true')).body.data!.items.map((i) => i.id),
    ).toEqual([a]);
    const search = async (q: string) =>
      (await root.call<Page>('GET', `/api/channel/search?${q}`)).body.data!.items.map((i) => i.id).sort();
    expect(await search('keyword=ALPHA')).toEqual([a]);
    expect(await search(`keyword=${b}`)).toEqual([b]);
    // A key is found only by its whole value, and only by root (secrets are never searchable by part).
    expect(await search('keyword=gamma-secret')).toEqual([]);
    expect(await search('keyword=gamma-secret-key-abcdefghijklmnop')).toEqual([c]);
    expect(await search('keyword=alpha.example')).toEqual([a]);
    expect(await search('group=vip')).toEqual([b]);
    expect(await search('group=vi')).toEqual([]);
    expect(await search('model=claude')).toEqual([c]);
    expect(await search('keyword=&group=default&model=gpt')).toEqual([a].sort());
    const found = (await root.call<Page>('GET', '/api/channel/search?keyword=beta')).body.data!;
    expect(found.items[0]!.key).not.toContain('secret');
  });

  it('tag mode aggregates tagged channels into one row per tag, untagged channels stay rows', async () => {
    await clear();
    const ids: number[] = [];
    for (const [name, tag, priority, status] of [
      ['t1', 'team', 1, 1],
      ['t2', 'team', 7, 2],
      ['solo', '', 3, 1],
      ['o1', 'other', 0, 2],
    ] as const) {
      ids.push(
        (
          await create({
            name,
            key: `${name}-key-0123456789abcdef`,
            models: name,
            tag,
            priority,
            status,
            group: name === 't2' ? 'vip' : 'default',
          })
        ).body.data!.ids[0]!,
      );
    }
    const page = (
      await root.call<Page<ChannelPublic | ChannelTagRow>>('GET', '/api/channel/?tag_mode=true&page_size=10')
    ).body.data!;
    expect(page.total).toBe(3);
    expect(page.items.map((r) => ('is_tag' in r ? `tag:${r.tag}` : r.name))).toEqual(['tag:team', 'solo', 'tag:other']);
    const team = page.items[0] as ChannelTagRow;
    expect(team).toMatchObject({
      is_tag: true,
      tag: 'team',
      name: 'team',
      status: 1,
      channel_count: 2,
      enabled_count: 1,
      priority: 7,
      type: 1,
      models: 't2,t1',
      group: 'vip,default',
    });
    expect(team.children.map((c) => c.name)).toEqual(['t2', 't1']);
    expect(team.children.every((c) => !c.key.includes('key-0123'))).toBe(true);
    expect((page.items[2] as ChannelTagRow).status).toBe(2);
    const byId = (
      await root.call<Page<ChannelPublic | ChannelTagRow>>(
        'GET',
        '/api/channel/?tag_mode=true&id_sort=true&page_size=2',
      )
    ).body.data!;
    expect(byId.items.map((r) => ('is_tag' in r ? `tag:${r.tag}` : r.name))).toEqual(['tag:other', 'solo']);
    const searched = (
      await root.call<Page<ChannelPublic | ChannelTagRow>>('GET', '/api/channel/search?keyword=t1&tag_mode=true')
    ).body.data!;
    expect(searched.items).toHaveLength(1);
    expect((searched.items[0] as ChannelTagRow).children.map((c) => c.name)).toEqual(['t1']);
  });

  it('row actions and full updates rebuild abilities and the cache; deletes remove abilities', async () => {
    await clear();
    const id = (await create({ name: 'upd', key: KEY, models: 'a,b' })).body.data!.ids[0]!;
    expect((await root.call('PUT', '/api/channel/', { id, status: 2 })).body.success).toBe(true);
    expect((await abilities(id)).every((r) => r.enabled === 0)).toBe(true);
    expect(t.runtime.ctx.channelCache.modelsForGroup('default')).toEqual([]);
    await root.call('PUT', '/api/channel/', { id, status: 1 });
    await root.call('PUT', '/api/channel/', { id, priority: 9 });
    await root.call('PUT', '/api/channel/', { id, weight: 4 });
    expect((await abilities(id)).every((r) => r.enabled === 1 && Number(r.priority) === 9 && r.weight === 4)).toBe(
      true,
    );
    const full = await root.call<ChannelPublic>('PUT', '/api/channel/', {
      id,
      name: 'renamed',
      models: ['c'],
      group: 'vip',
      key: '',
    });
    expect(full.body.data).toMatchObject({ name: 'renamed', models: 'c', group: 'vip' });
    expect(full.body.data!.key).not.toBe(KEY);
    expect(await revealChannelKey(root, id)).toBe(KEY);
    expect((await abilities(id)).map((r) => `${r.group}/${r.model}`)).toEqual(['vip/c']);
    expect(
      (await root.call('PUT', '/api/channel/', { id, model_mapping: '{"x":"y","y":"x"}' })).body.message,
    ).toContain('cycle');
    expectRefused(await root.call('PUT', '/api/channel/', { id: 999999, name: 'none' }));
    expect((await root.call('DELETE', `/api/channel/${id}/`)).body.success).toBe(true);
    expect(await abilities(id)).toEqual([]);
    expectRefused(await root.call('GET', `/api/channel/${id}`));
  });

  it('deletes disabled channels and batches, and fix rebuilds every ability', async () => {
    await clear();
    const on = (await create({ name: 'on', key: KEY, models: 'm' })).body.data!.ids[0]!;
    const off = (await create({ name: 'off', key: KEY, models: 'm', status: 2 })).body.data!.ids[0]!;
    await t.runtime.ctx.db.kysely.updateTable('channels').set({ status: 3 }).where('id', '=', on).execute();
    const keep = (await create({ name: 'keep', key: KEY, models: 'm' })).body.data!.ids[0]!;
    expect((await root.call<number>('DELETE', '/api/channel/disabled')).body.data).toBe(2);
    expect((await root.call<Page>('GET', '/api/channel/')).body.data!.items.map((c) => c.id)).toEqual([keep]);
    expect(off).toBeGreaterThan(0);
    // Abilities damaged behind the server's back come back with fix.
    await t.runtime.ctx.db.kysely.deleteFrom('abilities').execute();
    expect((await root.call<{ success: number; fails: number }>('POST', '/api/channel/fix')).body.data).toEqual({
      success: 1,
      fails: 0,
    });
    expect((await abilities(keep)).map((r) => r.model)).toEqual(['m']);
    expect(t.runtime.ctx.channelCache.select('default', 'm', new Set(), 0)?.id).toBe(keep);
    expect((await root.call('POST', '/api/channel/batch', { ids: [] })).body.message).toContain(
      'please select channels to delete first',
    );
    expect((await root.call<number>('POST', '/api/channel/batch', { ids: [keep, 424242] })).body.data).toBe(1);
    expect(await abilities(keep)).toEqual([]);
  });

  it('lists known models and the default models of every channel type', async () => {
    const known = (await root.call<{ id: string; owned_by: string }[]>('GET', '/api/channel/models')).body.data!;
    expect(known).toContainEqual(expect.objectContaining({ id: 'gpt-4o', owned_by: 'openai' }));
    expect(known).toContainEqual(expect.objectContaining({ id: 'suno_music' }));
    const byType = (await root.call<Record<string, string[]>>('GET', '/api/models')).body.data!;
    // Every channel type: new-api's 1–58 (the reserved 28–30 and 32 included) and 100–101.
    expect(Object.keys(byType)).toHaveLength(60);
    expect(byType['1']).toContain('gpt-4o');
    expect(byType['14']!.every((m) => m.startsWith('claude'))).toBe(true);
    expect(byType['36']).toEqual(['suno_music', 'suno_lyrics']);
  });
});
