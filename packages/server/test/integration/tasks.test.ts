import type { Insertable } from 'kysely';
import type { MjRow, TaskRow } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { TasksTable } from '../../src/db/schema.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MJ_T0, mjRow } from '../support/mj-row.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

type Page<T> = { items: T[]; page: number; total: number };
const T0 = MJ_T0;

describe.each(dialects)('drawing and music task lists on %s', (dialect) => {
  let t: TestApp, admin: Client, alice: Client, bob: Client;

  const task = (over: Partial<Insertable<TasksTable>>): Insertable<TasksTable> => ({
    task_id: '',
    platform: 'suno',
    user_id: 0,
    channel_id: 1,
    quota: 2000,
    action: 'MUSIC',
    status: 'SUCCESS',
    fail_reason: '',
    submit_time: T0,
    start_time: T0 + 2,
    finish_time: T0 + 90,
    progress: '100%',
    data: '[]',
    result_url: '',
    private_data: '',
    ...over,
  });

  useApp(dialect, { admins: ['task-admin'], users: ['alice', 'bob'] }, async (app) => {
    ({
      t,
      admins: [admin],
      users: [alice, bob],
    } = app);
    const k = t.database.db.kysely;
    await k
      .insertInto('midjourneys')
      .values([
        mjRow({ user_id: alice.userId!, mj_id: 'mj-a1', submit_time: T0 + 10 }),
        mjRow({
          user_id: alice.userId!,
          mj_id: 'mj-a2',
          submit_time: T0 + 20,
          channel_id: 2,
          action: 'UPSCALE',
          status: 'FAILURE',
          fail_reason: 'banned prompt',
          image_url: '',
          video_url: 'https://v.example/a2.mp4',
          private_data: '{"secret":"upstream-only"}',
        }),
        mjRow({
          user_id: bob.userId!,
          mj_id: 'mj-b1',
          submit_time: T0 + 30,
          channel_id: 2,
          status: 'IN_PROGRESS',
          progress: '40%',
        }),
      ])
      .execute();
    await k
      .insertInto('tasks')
      .values([
        task({ user_id: alice.userId!, task_id: 'tk-a1', submit_time: T0 + 5 }),
        task({
          user_id: bob.userId!,
          task_id: 'tk-b1',
          submit_time: T0 + 15,
          channel_id: 3,
          action: 'LYRICS',
          status: 'QUEUED',
          progress: '0%',
        }),
        task({ user_id: bob.userId!, task_id: 'tk-b2', submit_time: T0 + 25, channel_id: 3, status: '' }),
        task({
          user_id: alice.userId!,
          task_id: 'tk-v1',
          platform: 'kling',
          action: 'textGenerate',
          submit_time: T0 + 1,
          result_url: 'https://v.example/v1.mp4',
          private_data: '{"secret":"x"}',
        }),
      ])
      .execute();
  });

  const get = async <T>(c: Client, url: string) => {
    const res = await c.call<Page<T>>('GET', url);
    expect(res.body.success).toBe(true);
    return res.body.data!;
  };
  const mjIds = (p: Page<MjRow>) => p.items.map((r) => r.mj_id);
  const taskIds = (p: Page<TaskRow>) => p.items.map((r) => r.task_id);

  it('administrators list every drawing task, newest first, with the channel', async () => {
    const all = await get<MjRow>(admin, '/api/mj/?p=1&page_size=10');
    expect(all.total).toBe(3);
    expect(mjIds(all)).toEqual(['mj-b1', 'mj-a2', 'mj-a1']);
    expect(all.items[1]).toEqual({
      id: all.items[1]!.id,
      user_id: alice.userId,
      code: 1,
      action: 'UPSCALE',
      mj_id: 'mj-a2',
      prompt: 'a cat',
      prompt_en: 'a cat',
      description: '',
      status: 'FAILURE',
      progress: '100%',
      image_url: '',
      video_url: 'https://v.example/a2.mp4',
      fail_reason: 'banned prompt',
      submit_time: T0 + 20,
      start_time: T0 + 1,
      finish_time: T0 + 30,
      quota: 5000,
      channel_id: 2,
    });
  });

  it('filters drawings by channel, mj_id, user and an inclusive submit-time range, and pages', async () => {
    expect(mjIds(await get<MjRow>(admin, '/api/mj/?channel_id=2'))).toEqual(['mj-b1', 'mj-a2']);
    expect(mjIds(await get<MjRow>(admin, '/api/mj/?mj_id=mj-a1'))).toEqual(['mj-a1']);
    expect(mjIds(await get<MjRow>(admin, `/api/mj/?user_id=${bob.userId}`))).toEqual(['mj-b1']);
    expect(mjIds(await get<MjRow>(admin, `/api/mj/?start_timestamp=${T0 + 10}&end_timestamp=${T0 + 20}`))).toEqual([
      'mj-a2',
      'mj-a1',
    ]);
    expect(mjIds(await get<MjRow>(admin, '/api/mj/?channel_id=0&mj_id=&start_timestamp=0'))).toHaveLength(3);
    const p2 = await get<MjRow>(admin, '/api/mj/?p=2&page_size=2');
    expect(p2).toMatchObject({ page: 2, total: 3 });
    expect(mjIds(p2)).toEqual(['mj-a1']);
  });

  it('a user sees only their own drawings, without the channel, and cannot widen the scope', async () => {
    const own = await get<MjRow>(alice, '/api/mj/self/?p=1');
    expect(mjIds(own)).toEqual(['mj-a2', 'mj-a1']);
    expect(own.items.every((r) => !('channel_id' in r))).toBe(true);
    expect(mjIds(await get<MjRow>(alice, '/api/mj/self/?mj_id=mj-b1'))).toEqual([]);
    expect(mjIds(await get<MjRow>(alice, `/api/mj/self/?user_id=${bob.userId}`))).toEqual(['mj-a2', 'mj-a1']);
    expect(mjIds(await get<MjRow>(bob, '/api/mj/self/'))).toEqual(['mj-b1']);
    const denied = await alice.call('GET', '/api/mj/');
    expect(denied.status).toBe(403);
    expect(denied.body.success).toBe(false);
  });

  it('administrators list and filter music tasks; users only their own', async () => {
    const all = await get<TaskRow>(admin, '/api/task/');
    expect(taskIds(all)).toEqual(['tk-b2', 'tk-b1', 'tk-a1', 'tk-v1']);
    // A video task's result file is shown; the private data never.
    expect(all.items[3]).toMatchObject({
      platform: 'kling',
      action: 'textGenerate',
      result_url: 'https://v.example/v1.mp4',
    });
    expect(all.items.every((r) => !('private_data' in r))).toBe(true);
    expect(all.items[1]).toMatchObject({
      platform: 'suno',
      action: 'LYRICS',
      status: 'QUEUED',
      progress: '0%',
      channel_id: 3,
      user_id: bob.userId,
      quota: 2000,
    });
    expect(taskIds(await get<TaskRow>(admin, '/api/task/?channel_id=3'))).toEqual(['tk-b2', 'tk-b1']);
    expect(taskIds(await get<TaskRow>(admin, '/api/task/?task_id=tk-a1'))).toEqual(['tk-a1']);
    expect(taskIds(await get<TaskRow>(admin, `/api/task/?user_id=${alice.userId}`))).toEqual(['tk-a1', 'tk-v1']);
    expect(taskIds(await get<TaskRow>(admin, `/api/task/?start_timestamp=${T0 + 6}&end_timestamp=${T0 + 25}`))).toEqual(
      ['tk-b2', 'tk-b1'],
    );
    const bobs = await get<TaskRow>(bob, '/api/task/self?p=1&page_size=10');
    expect(taskIds(bobs)).toEqual(['tk-b2', 'tk-b1']);
    expect(bobs.items.every((r) => !('channel_id' in r))).toBe(true);
    expect(taskIds(await get<TaskRow>(alice, '/api/task/self?task_id=tk-b1'))).toEqual([]);
    expect((await bob.call('GET', '/api/task/')).status).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/task/self' })).statusCode).toBe(401);
  });

  it('rejects malformed filters with a clear message', async () => {
    const bad = await admin.call('GET', '/api/mj/?start_timestamp=yesterday');
    expectRefused(bad);
    expect(bad.body).toMatchObject({ success: false });
    expect(bad.body.message).toContain('start_timestamp must be epoch seconds');
    const badChannel = await admin.call('GET', '/api/task/?channel_id=-1');
    expectRefused(badChannel);
    expect(badChannel.body.message).toContain('channel_id');
  });
});
