import type { LogRow, LogStat } from '@tollway/shared';
import type { Insertable } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { LogsTable } from '../../src/db/schema.js';
import type { Client, TestApp } from '../support/app.js';
import { spiedLogsStore } from '../support/delete-spy.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

type Page = { items: LogRow[]; page: number; total: number };

const T0 = 1_700_000_000;
const OTHER = JSON.stringify({
  model_ratio: 1.25,
  completion_ratio: 4,
  group_ratio: 1,
  frt: 120,
  admin_info: { use_channel: [1, 2] },
});

describe.each(dialects)('usage logs: filters, visibility, stats and pruning on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, alice: Client, bob: Client;
  const now = Math.floor(Date.now() / 1000);

  const row = (over: Partial<Insertable<LogsTable>>): Insertable<LogsTable> => ({
    user_id: 0,
    created_at: T0,
    type: 2,
    content: '',
    username: '',
    token_name: '',
    model_name: 'gpt-4o',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 1,
    is_stream: 0,
    channel_id: 1,
    channel_name: 'ch-one',
    token_id: 0,
    group: 'default',
    ip: '203.0.113.7',
    request_id: '',
    other: OTHER,
    ...over,
  });
  const insert = (rows: Insertable<LogsTable>[]) => t.runtime.ctx.db.kysely.insertInto('logs').values(rows).execute();

  useApp(dialect, { admins: ['log-admin'], users: ['alice', 'bob'] }, async (app) => {
    ({
      t,
      root,
      admins: [admin],
      users: [alice, bob],
    } = app);
    const a = { user_id: alice.userId!, username: 'alice' };
    const b = { user_id: bob.userId!, username: 'bob' };
    await insert([
      row({
        ...a,
        created_at: T0 + 1,
        token_name: 'a-main',
        token_id: 11,
        quota: 100,
        prompt_tokens: 10,
        completion_tokens: 5,
        is_stream: 1,
        request_id: 'req-1',
      }),
      row({
        ...a,
        created_at: T0 + 2,
        token_name: 'a-main',
        token_id: 11,
        model_name: 'gpt-4o-mini',
        quota: 40,
        prompt_tokens: 4,
        completion_tokens: 2,
      }),
      row({
        ...a,
        created_at: T0 + 3,
        token_name: 'a-side',
        token_id: 12,
        group: 'vip',
        channel_id: 2,
        channel_name: 'ch-two',
        quota: 7,
        prompt_tokens: 1,
        completion_tokens: 1,
      }),
      row({
        ...a,
        created_at: T0 + 4,
        type: 6,
        content: 'upstream error',
        other: JSON.stringify({
          status_code: 500,
          channel_id: 2,
          channel_name: 'ch-two',
          admin_info: { use_channel: [2] },
        }),
      }),
      row({
        ...a,
        created_at: T0 + 5,
        type: 1,
        content: 'top-up',
        model_name: '',
        channel_id: 0,
        channel_name: '',
        quota: 5000,
        other: '',
      }),
      row({
        ...b,
        created_at: T0 + 6,
        token_name: 'b-main',
        token_id: 21,
        channel_id: 2,
        channel_name: 'ch-two',
        quota: 300,
        prompt_tokens: 30,
        completion_tokens: 3,
      }),
      // Within the last minute: counted by rpm/tpm.
      row({
        ...a,
        created_at: now - 10,
        token_name: 'a-main',
        token_id: 11,
        quota: 11,
        prompt_tokens: 100,
        completion_tokens: 20,
      }),
      row({
        ...b,
        created_at: now - 5,
        token_name: 'b-main',
        token_id: 21,
        channel_id: 2,
        channel_name: 'ch-two',
        quota: 22,
        prompt_tokens: 200,
        completion_tokens: 40,
      }),
      row({ ...b, created_at: now - 4, type: 6, token_name: 'b-main', prompt_tokens: 999 }),
    ]);
  });

  const adminList = async (query: string) =>
    (await admin.call<Page>('GET', `/api/log/?page_size=100&${query}`)).body.data!;
  const selfList = async (c: Client, query: string) =>
    (await c.call<Page>('GET', `/api/log/self/?page_size=100&${query}`)).body.data!;
  const ids = (p: Page) => p.items.map((r) => r.created_at);

  it('administrators see every row, newest first, with channel, channel name, ip and other as stored', async () => {
    const all = await adminList('');
    expect(all.total).toBe(9);
    expect(ids(all)).toEqual([...ids(all)].sort((x, y) => y - x));
    const first = all.items.find((r) => r.request_id === 'req-1')!;
    expect(first).toEqual({
      id: first.id,
      created_at: T0 + 1,
      type: 2,
      user_id: alice.userId,
      username: 'alice',
      token_id: 11,
      token_name: 'a-main',
      model_name: 'gpt-4o',
      group: 'default',
      channel: 1,
      channel_name: 'ch-one',
      prompt_tokens: 10,
      completion_tokens: 5,
      quota: 100,
      use_time: 1,
      is_stream: true,
      content: '',
      ip: '203.0.113.7',
      request_id: 'req-1',
      other: OTHER,
    });
  });

  it('filters by type, username, token, model, channel, group and an inclusive time range', async () => {
    expect((await adminList('type=2')).total).toBe(6);
    expect((await adminList('type=6')).total).toBe(2);
    expect((await adminList('username=bob')).total).toBe(3);
    expect((await adminList('username=bob&type=2')).total).toBe(2);
    expect((await adminList('token_name=a-main')).total).toBe(3);
    expect((await adminList('model_name=gpt-4o-mini')).items.map((r) => r.created_at)).toEqual([T0 + 2]);
    expect(ids(await adminList('channel=2'))).toEqual([now - 5, T0 + 6, T0 + 3]);
    expect(ids(await adminList('group=vip'))).toEqual([T0 + 3]);
    expect(ids(await adminList(`start_timestamp=${T0 + 2}&end_timestamp=${T0 + 4}`))).toEqual([T0 + 4, T0 + 3, T0 + 2]);
    expect(ids(await adminList(`start_timestamp=${T0 + 5}&username=alice`))).toEqual([now - 10, T0 + 5]);
    expect((await adminList('type=0&username=&channel=0')).total).toBe(9);
    expect((await adminList('username=nobody')).total).toBe(0);
  });

  it('pages with p and page_size (p=0 is the first page)', async () => {
    const all = ids(await adminList(''));
    const p1 = (await admin.call<Page>('GET', '/api/log/?p=0&page_size=4')).body.data!;
    expect(p1).toMatchObject({ page: 1, total: 9 });
    expect(ids(p1)).toEqual(all.slice(0, 4));
    const p3 = (await admin.call<Page>('GET', '/api/log/?p=3&page_size=4')).body.data!;
    expect(p3).toMatchObject({ page: 3, total: 9 });
    expect(ids(p3)).toEqual(all.slice(8));
    expectRefused(await admin.call('GET', '/api/log/?page_size=101'));
    expect((await admin.call('GET', '/api/log/?start_timestamp=abc')).body.message).toContain('start_timestamp');
  });

  it('users see only their own rows, without channels, admin-only keys of other, or ip unless they ask', async () => {
    expect((await alice.call('GET', '/api/log/')).status).toBe(403);
    const own = await selfList(alice, '');
    expect(own.total).toBe(6);
    expect(own.items.every((r) => r.user_id === alice.userId)).toBe(true);
    for (const r of own.items) {
      expect(r).not.toHaveProperty('channel');
      expect(r).not.toHaveProperty('channel_name');
      expect(r).not.toHaveProperty('ip');
      expect(r.other).not.toContain('admin_info');
      expect(r.other).not.toContain('ch-two');
    }
    const first = own.items.find((r) => r.created_at === T0 + 1)!;
    expect(JSON.parse(first.other)).toEqual({ model_ratio: 1.25, completion_ratio: 4, group_ratio: 1, frt: 120 });
    expect(JSON.parse(own.items.find((r) => r.type === 6)!.other)).toEqual({ status_code: 500 });
    // username and channel are not filters here: alice cannot reach bob's rows through them.
    expect((await selfList(alice, 'username=bob')).total).toBe(6);
    expect((await selfList(alice, 'channel=2')).total).toBe(6);
    expect(ids(await selfList(alice, 'type=2&token_name=a-main'))).toEqual([now - 10, T0 + 2, T0 + 1]);
    expect((await selfList(bob, '')).total).toBe(3);
    await alice.call('PUT', '/api/user/setting', { show_ip_in_logs: true });
    const withIp = await selfList(alice, '');
    expect(withIp.items.every((r) => r.ip === '203.0.113.7')).toBe(true);
    expect(withIp.items.every((r) => r.channel === undefined)).toBe(true);
  });

  it('stat sums consumption quota over the filters and counts the last minute for rpm and tpm', async () => {
    const stat = async (c: Client, path: string) => (await c.call<LogStat>('GET', path)).body.data!;
    expect(await stat(admin, '/api/log/stat')).toEqual({ quota: 100 + 40 + 7 + 300 + 11 + 22, rpm: 2, tpm: 120 + 240 });
    expect(await stat(admin, '/api/log/stat?username=bob')).toEqual({ quota: 322, rpm: 1, tpm: 240 });
    expect(await stat(admin, `/api/log/stat?start_timestamp=${T0}&end_timestamp=${T0 + 100}`)).toEqual({
      quota: 447,
      rpm: 2,
      tpm: 360,
    });
    expect(await stat(admin, '/api/log/stat?model_name=gpt-4o-mini')).toEqual({ quota: 40, rpm: 0, tpm: 0 });
    expect(await stat(admin, '/api/log/stat?channel=2')).toEqual({ quota: 7 + 300 + 22, rpm: 1, tpm: 240 });
    expect(await stat(alice, '/api/log/self/stat')).toEqual({ quota: 158, rpm: 1, tpm: 120 });
    expect(await stat(alice, '/api/log/self/stat?username=bob')).toEqual({ quota: 158, rpm: 1, tpm: 120 });
    expect(await stat(bob, '/api/log/self/stat?token_name=nothing')).toEqual({ quota: 0, rpm: 0, tpm: 0 });
    expect((await alice.call('GET', '/api/log/stat')).status).toBe(403);
  });

  it('root deletes logs created before a timestamp, in batches, and gets the count', async () => {
    const old = Array.from({ length: 5200 }, (_, i) =>
      row({ user_id: bob.userId!, username: 'bob', created_at: T0 - 100_000 + (i % 1000), quota: 1 }),
    );
    for (let i = 0; i < old.length; i += 400) await insert(old.slice(i, i + 400));
    expect((await admin.call('DELETE', `/api/log/?target_timestamp=${T0}`)).status).toBe(403);
    const missing = await root.call('DELETE', '/api/log/');
    expectRefused(missing);
    expect(missing.body.message).toContain('target_timestamp');
    const res = await root.call<number>('DELETE', `/api/log/?target_timestamp=${T0}`);
    expect(res.body).toEqual({ success: true, message: '', data: 5200 });
    expect((await adminList('')).total).toBe(9);
    // Small batches: every statement removes at most the batch size, the total is exact, newer rows stay.
    const { store, deletedPerStatement: deleted } = spiedLogsStore(t.runtime.ctx.db);
    expect(await store.deleteBefore(T0 + 4, { batch: 2 })).toBe(3);
    expect(deleted).toEqual([2, 1]);
    expect(ids(await adminList('')).sort()).toEqual([T0 + 4, T0 + 5, T0 + 6, now - 10, now - 5, now - 4].sort());
    expect(await store.deleteBefore(T0 + 4, { batch: 2 })).toBe(0);
    expect((await root.call<number>('DELETE', `/api/log/?target_timestamp=${now + 10}`)).body.data).toBe(6);
  });
});
