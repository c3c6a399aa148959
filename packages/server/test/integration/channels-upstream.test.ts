import type { ChannelPublic } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';
import { BAD_KEY, GOOD_KEY, SLOW_KEY, startChannelMock, type ChannelMock } from '../support/channel-mock.js';
import { dialects } from '../support/databases.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('channel test, fetch models and balance against a mock upstream on %s', (dialect) => {
  let t: TestApp;
  let root: Client;
  let mock: ChannelMock;
  beforeAll(async () => {
    mock = await startChannelMock();
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const ctx = () => t.runtime.ctx;
  const create = async (channel: Record<string, unknown>) => {
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: { models: 'gpt-4o,gpt-4o-mini', base_url: mock.url, ...channel },
    });
    if (!res.body.success) throw new Error(res.body.message);
    return res.body.data!.ids[0]!;
  };
  const get = async (id: number) => (await root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
  const setOption = (key: string, value: string) => root.call('PUT', '/api/option/', { key, value });
  const clear = async () => {
    const all = await ctx().db.kysely.selectFrom('channels').select('id').execute();
    if (all.length) await root.call('POST', '/api/channel/batch', { ids: all.map((c) => c.id) });
  };

  it('tests one channel: {success, message, time} at the top level, response and test time recorded', async () => {
    const id = await create({ name: 'good', key: GOOD_KEY, test_model: 'gpt-4o-mini' });
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/channel/test/${id}`,
      headers: { cookie: root.cookie, 'new-api-user': String(root.userId) },
    });
    const body = res.json() as { success: boolean; message: string; time: number };
    expect(res.statusCode).toBe(200);
    expect(body.success).toBe(true);
    expect(body.time).toBeGreaterThan(0.01);
    const last = mock.seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', path: '/v1/chat/completions', auth: `Bearer ${GOOD_KEY}` });
    expect(last.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 1 });
    const ch = await get(id);
    expect(ch.response_time).toBeGreaterThanOrEqual(10);
    expect(ch.test_time).toBeGreaterThan(0);
    await root.call('GET', `/api/channel/test/${id}?model=gpt-4o`);
    expect(mock.seen.at(-1)!.body).toMatchObject({ model: 'gpt-4o' });
  });

  it('a failing test answers success false with the upstream message, never the key', async () => {
    const id = await create({ name: 'bad', key: BAD_KEY });
    const res = await root.call('GET', `/api/channel/test/${id}`);
    const body = res.body as unknown as { success: boolean; message: string; time: number };
    expect(body.success).toBe(false);
    expect(body.message).toContain('Incorrect API key provided');
    expect(body.message).not.toContain(BAD_KEY);
    expect(typeof body.time).toBe('number');
    // A single test records the time but changes no status.
    expect((await get(id)).status).toBe(1);
    expectRefused(await root.call('GET', '/api/channel/test/999999'));
  });

  it('a failed test stays on the channel (other_info.test_error) and opens its breaker; a passing one clears it', async () => {
    const id = await create({ name: 'failing', key: BAD_KEY });
    await root.call('GET', `/api/channel/test/${id}`);
    const failed = await get(id);
    expect(JSON.parse(failed.other_info)).toMatchObject({ test_error: expect.stringContaining('Incorrect API key') });
    expect(failed.other_info).not.toContain(BAD_KEY);
    const list = await root.call<{ items: ChannelPublic[] }>('GET', '/api/channel/?p=1&page_size=100');
    expect(list.body.data!.items.find((c) => c.id === id)!.health?.state).toBe('open');
    // The key replaced: the breaker closes, the next test passes and the failure is gone.
    expect((await root.call('PUT', '/api/channel/', { id, key: GOOD_KEY })).body.success).toBe(true);
    expect((await root.call('GET', `/api/channel/test/${id}`)).body).toMatchObject({ success: true });
    expect((await get(id)).other_info).toBe('');
    const after = await root.call<{ items: ChannelPublic[] }>('GET', '/api/channel/?p=1&page_size=100');
    expect(after.body.data!.items.find((c) => c.id === id)!.health?.state).toBe('closed');
  });

  it('tests all channels in the background: failing and slow ones disabled, passing auto-disabled ones enabled, manual ones left', async () => {
    await clear();
    await setOption('AutomaticDisableChannelEnabled', 'true');
    await setOption('AutomaticEnableChannelEnabled', 'true');
    await setOption('ChannelDisableThreshold', '0.2');
    const good = await create({ name: 'good', key: GOOD_KEY });
    const bad = await create({ name: 'bad', key: BAD_KEY });
    const slow = await create({ name: 'slow', key: SLOW_KEY });
    const back = await create({ name: 'back', key: GOOD_KEY });
    const manual = await create({ name: 'manual', key: GOOD_KEY, status: 2 });
    const noBan = await create({ name: 'noban', key: BAD_KEY, auto_ban: 0 });
    await ctx()
      .db.kysely.updateTable('channels')
      .set({ status: 3, other_info: '{"status_reason":"old","status_time":1}' })
      .where('id', '=', back)
      .execute();
    const res = await root.call('GET', '/api/channel/test');
    expect(res.body).toMatchObject({ success: true });
    await ctx().channels.tester.idle();
    expect((await get(good)).status).toBe(1);
    expect((await get(bad)).status).toBe(3);
    expect(JSON.parse((await get(bad)).other_info).status_reason).toContain('test failed');
    expect((await get(slow)).status).toBe(3);
    expect(JSON.parse((await get(slow)).other_info).status_reason).toContain('threshold');
    expect((await get(back)).status).toBe(1);
    expect((await get(manual)).status).toBe(2);
    expect((await get(manual)).test_time).toBe(0);
    expect((await get(noBan)).status).toBe(1);
    expect(ctx().channelCache.get(back)!.status).toBe(1);
    expect(ctx().channelCache.get(bad)!.status).toBe(3);
  });

  it('the scheduled run re-tests only auto-disabled channels and enables those that pass', async () => {
    await clear();
    await setOption('AutomaticEnableChannelEnabled', 'true');
    await setOption('ChannelDisableThreshold', '5');
    const back = await create({ name: 'back', key: GOOD_KEY });
    const bad = await create({ name: 'bad', key: BAD_KEY });
    await ctx().db.kysely.updateTable('channels').set({ status: 3 }).where('id', '=', back).execute();
    const before = mock.seen.length;
    const stop = ctx().channels.tester.schedule(ctx(), 0.001);
    try {
      for (let i = 0; i < 100 && (await get(back)).status !== 1; i++) await new Promise((r) => setTimeout(r, 30));
    } finally {
      stop();
      await ctx().channels.tester.idle();
    }
    expect((await get(back)).status).toBe(1);
    expect((await get(bad)).status).toBe(1);
    expect(mock.seen.slice(before).every((s) => s.auth === `Bearer ${GOOD_KEY}`)).toBe(true);
  });

  it('fetches upstream models by channel and by base_url + type + key (first key only), Gemini included', async () => {
    const id = await create({ name: 'models', key: GOOD_KEY });
    expect((await root.call<string[]>('GET', `/api/channel/fetch_models/${id}`)).body.data).toEqual([
      'gpt-4o',
      'gpt-4o-mini',
    ]);
    const byBody = await root.call<string[]>('POST', '/api/channel/fetch_models', {
      base_url: `${mock.url}/`,
      type: 1,
      key: `${GOOD_KEY}\n${BAD_KEY}`,
    });
    expect(byBody.body.data).toEqual(['gpt-4o', 'gpt-4o-mini']);
    const gemini = await root.call<string[]>('POST', '/api/channel/fetch_models', {
      base_url: mock.url,
      type: 24,
      key: GOOD_KEY,
    });
    expect(gemini.body.data).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro']);
    expect(mock.seen.at(-1)!.path).toContain('/v1beta/models');
    const refused = await root.call('POST', '/api/channel/fetch_models', {
      base_url: mock.url,
      type: 24,
      key: BAD_KEY,
    });
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain('401');
    expect(refused.body.message).not.toContain(BAD_KEY);
    expect(
      (await root.call('POST', '/api/channel/fetch_models', { base_url: mock.url, type: 1, key: ' ' })).body.message,
    ).toContain('please fill in the key');
    const down = await root.call('POST', '/api/channel/fetch_models', {
      base_url: 'http://127.0.0.1:1',
      type: 1,
      key: GOOD_KEY,
    });
    expect(down.body.message).toContain('cannot reach the upstream');
  });

  it('queries balances per type, stores them, and explains unsupported types', async () => {
    await clear();
    const cases: [number, string, number][] = [
      [1, mock.url, 75],
      [20, `${mock.url}/api`, 14.5],
      [40, mock.url, 12.34],
      [43, mock.url, 15],
    ];
    for (const [type, base_url, expected] of cases) {
      const id = await create({ name: `bal-${type}`, key: GOOD_KEY, type, base_url });
      const res = await root.call<{ balance: number; balance_updated_time: number }>(
        'GET',
        `/api/channel/update_balance/${id}`,
      );
      expect(res.body.data, `type ${type}`).toMatchObject({ balance: expected });
      expect((await get(id)).balance).toBe(expected);
      expect((await get(id)).balance_updated_time).toBeGreaterThan(0);
    }
    const claude = await create({ name: 'claude', key: GOOD_KEY, type: 14 });
    expect((await root.call('GET', `/api/channel/update_balance/${claude}`)).body.message).toBe(
      'balance query not supported for this channel type',
    );
    const bad = await create({ name: 'bal-bad', key: BAD_KEY, type: 1 });
    const refused = await root.call('GET', `/api/channel/update_balance/${bad}`);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).not.toContain(BAD_KEY);
    expect(
      (await root.call<{ updated: number; failed: number }>('GET', '/api/channel/update_balance')).body.data,
    ).toEqual({ updated: 4, failed: 1 });
  });
});
