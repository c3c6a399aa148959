import type { ChannelPublic } from '@tollway/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { BAD_KEY, GOOD_KEY, startChannelMock, type ChannelMock } from '../support/channel-mock.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

/** The mock upstream lists gpt-4o-mini and gpt-4o. */
const CHECK = { upstream_model_update_check_enabled: true };

interface Detected {
  channel_id: number;
  add_models: string[];
  remove_models: string[];
  last_check_time: number;
}

describe.each(dialects)('upstream model updates: detect, apply, ignore on %s', (dialect) => {
  let t: TestApp, root: Client, plain: Client, mock: ChannelMock;
  useApp(dialect, { users: ['updates-plain'] }, (app) => {
    ({ t, root } = app);
    plain = app.users[0]!;
  });
  beforeAll(async () => {
    mock = await startChannelMock();
    return () => mock.close();
  });

  const ctx = () => t.runtime.ctx;
  const create = async (channel: Record<string, unknown>) => {
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: { key: GOOD_KEY, base_url: mock.url, group: ['default'], ...channel },
    });
    if (!res.body.success) throw new Error(res.body.message);
    return res.body.data!.ids[0]!;
  };
  const get = async (id: number) => (await root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
  const settings = async (id: number) => JSON.parse((await get(id)).settings || '{}') as Record<string, unknown>;
  const detect = (id: number) => root.call<Detected>('POST', '/api/channel/upstream_updates/detect', { id });
  const routes = (model: string) => ctx().channelCache.select('default', model, new Set(), 0)?.id;
  const abilityModels = async (id: number) =>
    (await ctx().db.kysely.selectFrom('abilities').select('model').where('channel_id', '=', id).execute())
      .map((r) => r.model)
      .sort();

  it('detect keeps the difference in settings; apply adds and removes the chosen models, abilities and routing follow', async () => {
    const id = await create({
      name: 'watched',
      models: ['gpt-4o', 'old-model', 'alias'],
      model_mapping: JSON.stringify({ alias: 'gpt-4o' }),
      settings: JSON.stringify({ ...CHECK, claude_beta_query: false }),
    });
    const found = await detect(id);
    expect(found.body.success, found.body.message).toBe(true);
    expect(found.body.data).toMatchObject({
      channel_id: id,
      add_models: ['gpt-4o-mini'],
      remove_models: ['old-model'],
    });
    expect(mock.seen.at(-1)).toMatchObject({ path: '/v1/models', auth: `Bearer ${GOOD_KEY}` });
    let s = await settings(id);
    expect(s).toMatchObject({
      ...CHECK,
      claude_beta_query: false,
      upstream_model_update_last_detected_models: ['gpt-4o-mini'],
      upstream_model_update_last_removed_models: ['old-model'],
      upstream_model_update_last_check_time: found.body.data!.last_check_time,
    });
    // Detection alone changes nothing that routes.
    expect((await get(id)).models).toBe('gpt-4o,old-model,alias');
    expect(routes('gpt-4o-mini')).toBeUndefined();

    const applied = await root.call<Record<string, unknown>>('POST', '/api/channel/upstream_updates/apply', {
      id,
      add_models: ['gpt-4o-mini', 'never-detected'],
      remove_models: ['old-model', 'gpt-4o'],
      ignore_models: [],
    });
    expect(applied.body.success, applied.body.message).toBe(true);
    expect(applied.body.data).toMatchObject({
      id,
      added_models: ['gpt-4o-mini'],
      removed_models: ['old-model'],
      remaining_models: [],
      remaining_remove_models: [],
      models: 'gpt-4o,alias,gpt-4o-mini',
    });
    expect(JSON.parse(applied.body.data!.settings as string)).toMatchObject({ claude_beta_query: false });
    expect(await abilityModels(id)).toEqual(['alias', 'gpt-4o', 'gpt-4o-mini']);
    expect(routes('gpt-4o-mini')).toBe(id);
    expect(routes('old-model')).toBeUndefined();
    expect((await detect(id)).body.data).toMatchObject({ add_models: [], remove_models: [] });
    s = await settings(id);
    expect(s.upstream_model_update_last_detected_models).toEqual([]);
    await root.call('DELETE', `/api/channel/${id}`);
  });

  it('ignored models (exact or regex:) are not proposed again until added', async () => {
    const id = await create({ name: 'ignoring', models: ['gpt-4o'], settings: JSON.stringify(CHECK) });
    expect((await detect(id)).body.data!.add_models).toEqual(['gpt-4o-mini']);
    const res = await root.call<Record<string, unknown>>('POST', '/api/channel/upstream_updates/apply', {
      id,
      add_models: [],
      ignore_models: ['gpt-4o-mini'],
    });
    expect(res.body.data).toMatchObject({ added_models: [], ignored_models: ['gpt-4o-mini'], models: 'gpt-4o' });
    expect((await settings(id)).upstream_model_update_ignored_models).toEqual(['gpt-4o-mini']);
    expect((await detect(id)).body.data!.add_models).toEqual([]);

    const byPattern = await create({
      name: 'pattern',
      models: ['local-only'],
      settings: JSON.stringify({ ...CHECK, upstream_model_update_ignored_models: ['regex:^gpt-4o-m', 'regex:('] }),
    });
    expect((await detect(byPattern)).body.data!.add_models).toEqual(['gpt-4o']);
    await root.call('POST', '/api/channel/batch', { ids: [id, byPattern] });
  });

  it('detect_all checks the enabled watched channels (failures listed), apply_all applies their pending changes', async () => {
    const a = await create({ name: 'all-a', models: ['gpt-4o', 'gone'], settings: JSON.stringify(CHECK) });
    const b = await create({ name: 'all-b', models: ['gpt-4o-mini'], settings: JSON.stringify(CHECK) });
    const unwatched = await create({ name: 'all-off', models: ['gone'] });
    const off = await create({ name: 'all-disabled', models: ['gone'], settings: JSON.stringify(CHECK), status: 2 });
    const broken = await create({ name: 'all-bad', key: BAD_KEY, models: ['gpt-4o'], settings: JSON.stringify(CHECK) });
    const all = await root.call('POST', '/api/channel/upstream_updates/detect_all', {});
    expect(all.body).toMatchObject({
      success: true,
      data: {
        processed_channels: 3,
        changed_channels: 2,
        detected_add_models: 2,
        detected_remove_models: 1,
        failed_channel_ids: [broken],
      },
    });
    expect(all.body.message).not.toContain(BAD_KEY);
    expect((await settings(broken)).upstream_model_update_last_check_time).toBeGreaterThan(0);
    expect((await settings(unwatched)).upstream_model_update_last_check_time).toBeUndefined();
    const one = await detect(broken);
    expect(one.body.success).toBe(false);
    expect(JSON.stringify(one.body)).not.toContain(BAD_KEY);

    const applied = await root.call('POST', '/api/channel/upstream_updates/apply_all', {});
    expect(applied.body).toMatchObject({
      success: true,
      data: { processed_channels: 2, added_models: 2, removed_models: 1, failed_channel_ids: [] },
    });
    expect((await get(a)).models).toBe('gpt-4o,gpt-4o-mini');
    expect((await get(b)).models).toBe('gpt-4o-mini,gpt-4o');
    expect((await get(unwatched)).models).toBe('gone');
    expect((await get(off)).models).toBe('gone');
    expect(routes('gone')).toBe(unwatched);
    await root.call('POST', '/api/channel/batch', { ids: [a, b, unwatched, off, broken] });
  });

  it('administrators only: a plain user is refused and nothing is asked upstream', async () => {
    const id = await create({ name: 'guarded', models: ['gpt-4o'], settings: JSON.stringify(CHECK) });
    const seen = mock.seen.length;
    for (const [url, body] of [
      ['/api/channel/upstream_updates/detect', { id }],
      ['/api/channel/upstream_updates/detect_all', {}],
      ['/api/channel/upstream_updates/apply', { id, add_models: ['gpt-4o-mini'] }],
      ['/api/channel/upstream_updates/apply_all', {}],
    ] as const) {
      const res = await plain.call('POST', url, body);
      expect(res.status, url).toBe(403);
      expect(res.body.success).toBe(false);
    }
    expect(mock.seen.length).toBe(seen);
    expect((await settings(id)).upstream_model_update_last_check_time).toBeUndefined();
    await root.call('DELETE', `/api/channel/${id}`);
  });
});
