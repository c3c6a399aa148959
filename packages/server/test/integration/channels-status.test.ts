import type { ChannelPublic } from '@tollway/shared';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

const KEYS = ['k-first-0123456789abcdef', 'k-second-0123456789abcdef', 'k-third-0123456789abcdef'];

describe.each(dialects)('channel status rules and tag tools on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));
  beforeEach(async () => {
    await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' });
  });

  const ctx = () => t.runtime.ctx;
  const create = async (channel: Record<string, unknown>, mode = 'single') => {
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode,
      channel: { models: 'gpt-4o', ...channel },
    });
    if (!res.body.success) throw new Error(res.body.message);
    return res.body.data!.ids;
  };
  const get = async (id: number) => (await root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
  const enabledAbilities = async (id: number) =>
    (await ctx().db.kysely.selectFrom('abilities').select('enabled').where('channel_id', '=', id).execute()).map(
      (r) => r.enabled,
    );
  const report = (id: number, keyIndex: number, status: number, message: string) =>
    ctx().channels.reportUpstreamError(ctx().channelCache.get(id)!, keyIndex, status, message);

  it('single-key channel: 401 → status 3 with reason and time, abilities off, cache no longer routes it', async () => {
    const [id] = await create({ name: 'single', key: KEYS[0] });
    await report(id!, 0, 401, `Incorrect API key provided: ${KEYS[0]}`);
    const ch = await get(id!);
    expect(ch.status).toBe(3);
    const info = JSON.parse(ch.other_info) as { status_reason: string; status_time: number };
    expect(info.status_reason).toContain('status 401');
    expect(info.status_reason).not.toContain(KEYS[0]);
    expect(info.status_time).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(await enabledAbilities(id!)).toEqual([0]);
    expect(ctx().channelCache.select('default', 'gpt-4o', new Set(), 0)).toBeUndefined();
    // Auto-enable brings it back and clears the reason.
    expect(await ctx().channels.enableChannel(id!)).toBe(true);
    expect((await get(id!)).status).toBe(1);
    expect((await get(id!)).other_info).toBe('');
    expect(await enabledAbilities(id!)).toEqual([1]);
    await root.call('DELETE', `/api/channel/${id}`);
  });

  it('disables on configured keywords (case-insensitive) and 403 account messages, not on ordinary errors', async () => {
    const [id] = await create({ name: 'kw', key: KEYS[0] });
    await report(id!, 0, 500, 'internal error');
    await report(id!, 0, 429, 'rate limited');
    await report(id!, 0, 403, 'content blocked by policy');
    expect((await get(id!)).status).toBe(1);
    await report(id!, 0, 400, 'YOU EXCEEDED YOUR CURRENT QUOTA, please check your plan');
    expect((await get(id!)).status).toBe(3);
    const [id2] = await create({ name: 'kw2', key: KEYS[1] });
    await report(id2!, 0, 403, 'Your account has been suspended');
    expect((await get(id2!)).status).toBe(3);
    await root.call('POST', '/api/channel/batch', { ids: [id, id2] });
  });

  it('multi-key channel: the failing key alone is disabled, the channel only when no key is left', async () => {
    const [id] = await create({ name: 'multi', key: KEYS.join('\n') }, 'multi_to_single');
    await report(id!, 1, 401, 'invalid key');
    let ch = await get(id!);
    expect(ch.status).toBe(1);
    expect(ch.channel_info.multi_key_status_list).toEqual({ 1: 3 });
    expect(ch.channel_info.multi_key_disabled_reason['1']).toContain('invalid key');
    expect(ctx().channelCache.get(id!)!.keyEnabled).toEqual([true, false, true]);
    await report(id!, 0, 401, 'invalid key');
    expect((await get(id!)).status).toBe(1);
    await report(id!, 2, 401, 'invalid key');
    ch = await get(id!);
    expect(ch.status).toBe(3);
    expect(ch.channel_info.multi_key_status_list).toEqual({ 0: 3, 1: 3, 2: 3 });
    expect(JSON.parse(ch.other_info).status_reason).toContain('all keys are disabled');
    expect(await enabledAbilities(id!)).toEqual([0]);
    // Enabling a channel that has no usable key brings its auto-disabled keys back.
    await root.call('PUT', '/api/channel/', { id, status: 1 });
    ch = await get(id!);
    expect(ch.status).toBe(1);
    expect(ch.channel_info.multi_key_status_list).toEqual({});
    expect(ctx().channelCache.get(id!)!.keyEnabled).toEqual([true, true, true]);
    await root.call('DELETE', `/api/channel/${id}`);
  });

  it('never touches a manually disabled channel, nor acts when the option or auto_ban is off', async () => {
    const [manual] = await create({ name: 'manual', key: KEYS[0] });
    const cached = ctx().channelCache.get(manual!)!;
    await root.call('PUT', '/api/channel/', { id: manual, status: 2 });
    await ctx().channels.reportUpstreamError(cached, 0, 401, 'bad key');
    expect((await get(manual!)).status).toBe(2);
    expect(await ctx().channels.enableChannel(manual!)).toBe(false);
    expect((await get(manual!)).status).toBe(2);
    const [noBan] = await create({ name: 'noban', key: KEYS[1], auto_ban: 0 });
    await report(noBan!, 0, 401, 'bad key');
    expect((await get(noBan!)).status).toBe(1);
    await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'false' });
    const [off] = await create({ name: 'off', key: KEYS[2] });
    await report(off!, 0, 401, 'bad key');
    expect((await get(off!)).status).toBe(1);
    await root.call('POST', '/api/channel/batch', { ids: [manual, noBan, off] });
  });

  it('tag tools: batch tag, edit by tag (blank = unchanged), enable/disable by tag, dissolve', async () => {
    const ids = await create(
      { name: 'tagged', key: 'a-0123456789abcdef\nb-0123456789abcdef\nc-0123456789abcdef', priority: 1, weight: 1 },
      'batch',
    );
    const other = (await create({ name: 'untouched', key: KEYS[0] }))[0]!;
    expect((await root.call('POST', '/api/channel/batch/tag', { ids: [], tag: 'x' })).body.message).toContain(
      'please select channels first',
    );
    expect((await root.call('POST', '/api/channel/batch/tag', { ids, tag: ' ' })).body.message).toContain(
      'tag cannot be empty',
    );
    expect((await root.call<number>('POST', '/api/channel/batch/tag', { ids, tag: 'pool' })).body.data).toBe(3);
    const abilityTags = await ctx()
      .db.kysely.selectFrom('abilities')
      .select('tag')
      .where('channel_id', 'in', ids)
      .execute();
    expect(abilityTags.every((a) => a.tag === 'pool')).toBe(true);

    expect((await root.call('PUT', '/api/channel/tag', { tag: 'pool', priority: 'x' })).body.message).toContain(
      'priority must be an integer',
    );
    expect((await root.call('PUT', '/api/channel/tag', { tag: 'pool', weight: -2 })).body.message).toContain(
      'weight must be a non-negative integer',
    );
    expect((await root.call('PUT', '/api/channel/tag', { tag: 'pool', model_mapping: '{x' })).body.message).toContain(
      'model_mapping must be a valid JSON object',
    );
    expect(
      (await root.call('PUT', '/api/channel/tag', { tag: 'pool', new_tag: null, models: '', priority: '' })).body
        .message,
    ).toBe('no changes');
    expectRefused(await root.call('PUT', '/api/channel/tag', { tag: 'nope', priority: 1 }));
    const edit = await root.call<number>('PUT', '/api/channel/tag', {
      tag: 'pool',
      models: 'gpt-4o,o3',
      groups: 'vip',
      priority: 8,
      weight: '',
      model_mapping: '',
    });
    expect(edit.body.data).toBe(3);
    for (const id of ids)
      expect(await get(id)).toMatchObject({ models: 'gpt-4o,o3', group: 'vip', priority: 8, weight: 1, tag: 'pool' });
    expect(await get(other)).toMatchObject({ group: 'default', priority: 0 });
    expect(ctx().channelCache.modelsForGroup('vip')).toEqual(['gpt-4o', 'o3']);
    // new-api's tag editor also sets header and parameter overrides (checked as a channel's are).
    expect(
      (await root.call('PUT', '/api/channel/tag', { tag: 'pool', header_override: '{"Host":"x"}' })).body.success,
    ).toBe(false);
    const overrides = await root.call<number>('PUT', '/api/channel/tag', {
      tag: 'pool',
      header_override: '{"X-Tag":"t"}',
      param_override: '{"temperature":0.2}',
    });
    expect(overrides.body.data, overrides.body.message).toBe(3);
    for (const id of ids)
      expect(await get(id)).toMatchObject({ header_override: '{"X-Tag":"t"}', param_override: '{"temperature":0.2}' });
    expect(await get(other)).toMatchObject({ header_override: '', param_override: '' });

    expect((await root.call<number>('POST', '/api/channel/tag/disabled', { tag: 'pool' })).body.data).toBe(3);
    for (const id of ids) expect((await get(id)).status).toBe(2);
    expect(ctx().channelCache.modelsForGroup('vip')).toEqual([]);
    expect((await root.call<number>('POST', '/api/channel/tag/enabled', { tag: 'pool' })).body.data).toBe(3);
    expect(ctx().channelCache.modelsForGroup('vip')).toEqual(['gpt-4o', 'o3']);

    await root.call('PUT', '/api/channel/tag', { tag: 'pool', new_tag: 'renamed' });
    for (const id of ids) expect((await get(id)).tag).toBe('renamed');
    await root.call('PUT', '/api/channel/tag', { tag: 'renamed', new_tag: '' });
    for (const id of ids) expect((await get(id)).tag).toBe('');
    const stillTagged = await ctx().db.kysely.selectFrom('abilities').select('tag').where('tag', '!=', '').execute();
    expect(stillTagged).toEqual([]);
  });
});
