import { ChannelType, DEFAULT_QUOTA_PER_UNIT, LogType, UNSET_TASK_PRICE } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey, type Identified } from '../../src/relay/entry/authenticate.js';
import { RelayError } from '../../src/relay/pipeline/errors.js';
import type { RelayContext } from '../../src/relay/pipeline/services.js';
import { taskPlatformByName } from '../../src/relay/tasks/platforms.js';
import { applyTaskState, notifyTask } from '../../src/relay/tasks/refund.js';
import { submitTask } from '../../src/relay/tasks/service.js';
import { taskById } from '../../src/relay/tasks/store.js';
import { TaskStatus } from '../../src/relay/tasks/types.js';
import { createUserClient, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { freePort } from '../support/process.js';
import {
  registerFakeTaskPlatform,
  startMockTaskUpstream,
  type MockTaskUpstream,
} from '../support/mock-task-upstream.js';

const PLATFORM = 'fake-tasks';
const MODEL = 'fake_task';
/** 0.1 × QuotaPerUnit (500 000) × group ratio 1. */
const PRICE = 50_000;
const POLL_MS = 150;
const DEADLINE_MS = 15_000;
const CONCURRENT = 100;
const AFFORDABLE = 10;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS / 2));
  }
}

const userQuota = async (t: TestApp, id: number) => {
  await drainWriter(t);
  return Number(
    (await t.database.db.kysely.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow())
      .quota,
  );
};

const refundLogs = async (t: TestApp, taskId: string) => {
  await drainWriter(t);
  const rows = await t.database.db.kysely
    .selectFrom('logs')
    .select(['other', 'quota'])
    .where('type', '=', LogType.System)
    .execute();
  return rows.filter((r) => JSON.parse(r.other || '{}').task_id === taskId);
};

describe.each(dialects)('task engine on %s', (dialect) => {
  let unregister: () => void;
  beforeAll(() => (unregister = registerFakeTaskPlatform(PLATFORM, ChannelType.Custom)));
  afterAll(() => unregister());
  const gw = useGateway<MockTaskUpstream>(
    dialect,
    {
      user: 'alice',
      quota: 10 * PRICE,
      mock: startMockTaskUpstream,
      env: { TASK_POLL_INTERVAL_MS: String(POLL_MS) },
      timeout: 60_000,
    },
    async ({ root, mock }) => {
      await addChannel(root, {
        name: 'tasks',
        key: 'task-key',
        baseUrl: mock.url,
        models: `${MODEL},fake_free`,
        type: ChannelType.Custom,
      });
      await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.1 }) });
    },
  );
  const ctx = (): RelayContext => gw.t.runtime.ctx;
  const who = (key = gw.key): Promise<Identified> => authenticateKey(key.slice(3), '127.0.0.1', ctx().relay.tokens);
  const submit = async (prompt: string, key?: string) =>
    submitTask(ctx(), await who(key), {
      platform: taskPlatformByName(PLATFORM)!,
      action: 'GENERATE',
      model: MODEL,
      body: { prompt },
      ip: '127.0.0.1',
    });
  const accepted = async (prompt: string) => {
    const r = await submit(prompt);
    if (!r.ok) throw new Error(`refused: ${r.message}`);
    return r.task;
  };
  const settledRow = (id: number) =>
    until('the task to end', async () =>
      (await taskById(gw.t.database.db, 'tasks', id))?.status.match(/SUCCESS|FAILURE/)
        ? taskById(gw.t.database.db, 'tasks', id)
        : undefined,
    );

  it('submit → bill → poll → result: charged once at the price, the consume log names the task', async () => {
    const before = await userQuota(gw.t, gw.user.userId!);
    const task = await accepted('a lighthouse');
    expect(task).toMatchObject({
      status: TaskStatus.Submitted,
      quota: PRICE,
      modelName: MODEL,
      channelId: expect.any(Number),
    });
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(before - PRICE);
    const row = await settledRow(task.id);
    expect(row!.status).toBe(TaskStatus.Success);
    const stored = await gw.t.database.db.kysely
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      progress: '100%',
      result_url: `https://cdn.example/${task.upstreamTaskId}.png`,
      platform: PLATFORM,
    });
    expect(JSON.parse(stored.data)).toMatchObject({ status: 'SUCCESS' });
    const consume = await gw.t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('request_id', '=', task.requestId)
      .where('type', '=', LogType.Consume)
      .execute();
    expect(consume).toHaveLength(1);
    expect(consume[0]!.quota).toBe(PRICE);
    expect(JSON.parse(consume[0]!.other)).toMatchObject({
      task_id: task.taskId,
      model_price: 0.1,
      group_ratio: 1,
      event: { kind: 'task_submit', task_id: task.taskId, action: 'GENERATE' },
    });
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(before - PRICE);
    expect(await refundLogs(gw.t, task.taskId)).toHaveLength(0);
  });

  const taskRows = async () => (await gw.t.database.db.kysely.selectFrom('tasks').select('id').execute()).length;

  it('an upstream refusal charges nothing and keeps no row', async () => {
    const before = await userQuota(gw.t, gw.user.userId!);
    const rows = await taskRows();
    const r = await submit('refuse this');
    expect(r).toMatchObject({ ok: false, httpStatus: 400, code: 'bad_prompt', message: 'prompt refused' });
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(before);
    expect(await ctx().relay.ledger.available('users', gw.user.userId!)).toBe(before);
    expect(await taskRows()).toBe(rows);
  });

  it('a submit an unreachable channel fails moves to another channel when retries are on; a refusal (4xx) does not', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const deadId = await addChannel(gw.root, {
      name: 'dead',
      key: 'k',
      baseUrl: dead,
      models: MODEL,
      priority: 10,
      type: ChannelType.Custom,
    });
    let secondId: number | undefined;
    try {
      await ctx().channelCache.reload();
      const before = await userQuota(gw.t, gw.user.userId!);
      const rows = await taskRows();
      await gw.root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '0' });
      expect(await submit('a lighthouse, no retry')).toMatchObject({
        ok: false,
        httpStatus: 502,
        code: 'upstream_error',
      });
      expect(await taskRows()).toBe(rows);
      await gw.root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '1' });
      const task = await accepted('a lighthouse, retried');
      expect(task.channelId).not.toBe(deadId);
      expect(await userQuota(gw.t, gw.user.userId!)).toBe(before - PRICE);
      // Ended here, so no later case finds it unfinished (the timeout case would refund it).
      await applyTaskState(ctx(), task, { upstreamTaskId: task.upstreamTaskId, status: TaskStatus.Success });
      // Two reachable channels: the first one's refusal is the answer.
      await gw.root.call('DELETE', `/api/channel/${deadId}`);
      secondId = await addChannel(gw.root, {
        name: 'second',
        key: 'task-key',
        baseUrl: gw.mock.url,
        models: MODEL,
        priority: 10,
        type: ChannelType.Custom,
      });
      await ctx().channelCache.reload();
      expect(await submit('refuse this too')).toMatchObject({ ok: false, httpStatus: 400 });
      expect(gw.mock.submitted.filter((p) => p === 'refuse this too')).toHaveLength(1);
    } finally {
      await gw.root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '0' });
      for (const id of [deadId, secondId])
        if (id) await gw.root.call('DELETE', `/api/channel/${id}`).catch(() => undefined);
      await ctx().channelCache.reload();
    }
  });

  it('an action on an earlier task uses the key that task used (the same upstream account)', async () => {
    const created = await gw.root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: 'polling',
      channel: {
        name: 'two-keys',
        type: ChannelType.Custom,
        key: 'other-account\ntask-key',
        base_url: gw.mock.url,
        models: MODEL,
        group: 'default',
        priority: -10,
      },
    });
    const id = created.body.data!.ids[0]!;
    try {
      await ctx().channelCache.reload();
      const on = async (keyIndex: number) =>
        submitTask(ctx(), await who(), {
          platform: taskPlatformByName(PLATFORM)!,
          action: 'GENERATE',
          model: MODEL,
          body: { prompt: `key ${keyIndex}` },
          ip: '',
          channelId: id,
          keyIndex,
        });
      // The mock knows only task-key (index 1): forced to it, every submit is accepted; to index 0, every one refused.
      for (let i = 0; i < 3; i++) {
        const r = await on(1);
        expect(r).toMatchObject({ ok: true, task: { channelId: id, privateData: { key_index: 1 } } });
        // Ended here, so no later case finds it unfinished.
        if (r.ok)
          await applyTaskState(ctx(), r.task, { upstreamTaskId: r.task.upstreamTaskId, status: TaskStatus.Success });
      }
      for (let i = 0; i < 3; i++) expect(await on(0)).toMatchObject({ ok: false, httpStatus: 401 });
    } finally {
      await gw.root.call('DELETE', `/api/channel/${id}`);
      await ctx().channelCache.reload();
    }
  });

  it('an unpriced task model is a 404 model_price_not_set before anything is sent', async () => {
    const w = await who();
    await expect(
      submitTask(ctx(), w, {
        platform: taskPlatformByName(PLATFORM)!,
        action: 'GENERATE',
        model: 'fake_free',
        body: {},
        ip: '',
      }),
    ).rejects.toMatchObject({
      status: 404,
      code: 'model_price_not_set',
    });
  });

  it('an unpriced task model the user accepts is held at UNSET_TASK_PRICE, never free (hole 6)', async () => {
    const unsetQuota = UNSET_TASK_PRICE * DEFAULT_QUOTA_PER_UNIT;
    const balance = await userQuota(gw.t, gw.user.userId!);
    // Alice's balance (ten priced tasks) cannot pay the unset price: refused, where it used to be served for free.
    expect(balance).toBeLessThan(unsetQuota);
    await gw.user.call('PUT', '/api/user/setting', { accept_unset_model_ratio_model: true });
    try {
      await expect(
        submitTask(ctx(), await who(), {
          platform: taskPlatformByName(PLATFORM)!,
          action: 'GENERATE',
          model: 'fake_free',
          body: {},
          ip: '',
        }),
      ).rejects.toMatchObject({
        status: 403,
        code: 'insufficient_user_quota',
      });
      expect(await userQuota(gw.t, gw.user.userId!)).toBe(balance);
    } finally {
      await gw.user.call('PUT', '/api/user/setting', { accept_unset_model_ratio_model: false });
    }
  });

  it('a failed task is refunded exactly once, whoever races to end it', async () => {
    const before = await userQuota(gw.t, gw.user.userId!);
    const task = await accepted('fail please');
    const failure = {
      upstreamTaskId: task.upstreamTaskId,
      status: TaskStatus.Failure,
      failReason: 'notify says failed',
    };
    const wins = await Promise.all([
      ...Array.from({ length: 5 }, () => applyTaskState(ctx(), task, failure)),
      gw.t.runtime.taskPoller.job.runOnce(),
    ]);
    expect(wins.slice(0, 5).filter(Boolean).length).toBeLessThanOrEqual(1);
    const row = await settledRow(task.id);
    expect(row!.status).toBe(TaskStatus.Failure);
    const refunds = await refundLogs(gw.t, task.taskId);
    expect(refunds).toEqual([expect.objectContaining({ quota: PRICE })]);
    // The console words the row from its event; the upstream's own reason stays text.
    expect(JSON.parse(refunds[0]!.other).event).toEqual({
      kind: 'task_refund',
      task_id: task.taskId,
      action: task.action,
      quota: PRICE,
      reason: 'notify says failed',
    });
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(before);
    expect(await ctx().relay.ledger.available('users', gw.user.userId!)).toBe(before);
    // Later updates of a final task change nothing and refund nothing.
    expect(await applyTaskState(ctx(), task, failure)).toBe(false);
    expect(await refundLogs(gw.t, task.taskId)).toHaveLength(1);
  });

  it('a notify from the upstream updates the task at once, through the same update', async () => {
    const task = await accepted('never mind');
    const platform = taskPlatformByName(PLATFORM)!;
    expect(
      await notifyTask(ctx(), platform, {
        upstreamTaskId: task.upstreamTaskId,
        status: TaskStatus.Success,
        urls: ['https://cdn.example/notified.png'],
      }),
    ).toBe(true);
    const stored = await gw.t.database.db.kysely
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      status: TaskStatus.Success,
      progress: '100%',
      result_url: 'https://cdn.example/notified.png',
    });
    expect(await notifyTask(ctx(), platform, { upstreamTaskId: 'no-such-task', status: TaskStatus.Failure })).toBe(
      false,
    );
  });

  it('a task past the timeout fails with a refund', async () => {
    const before = await userQuota(gw.t, gw.user.userId!);
    const task = await accepted('never ends');
    const poller = gw.t.runtime.taskPoller;
    const late = task.submitTime + poller.timeoutMinutes * 60 + 1;
    // A background pass may be running as of now; passes as of the late time follow it.
    const row = await until('the timeout', async () => {
      await poller.job.runOnce(late);
      const r = await taskById(gw.t.database.db, 'tasks', task.id);
      return r?.status === TaskStatus.Failure && r;
    });
    expect(row!.status).toBe(TaskStatus.Failure);
    const stored = await gw.t.database.db.kysely
      .selectFrom('tasks')
      .select('fail_reason')
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(stored.fail_reason).toBe('task timed out');
    const refunds = await refundLogs(gw.t, task.taskId);
    expect(refunds).toHaveLength(1);
    // The gateway's own reason is a code the console words in the viewer's language.
    expect(JSON.parse(refunds[0]!.other).event).toMatchObject({
      kind: 'task_refund',
      task_id: task.taskId,
      reason_code: 'timeout',
    });
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(before);
  });

  it(`${CONCURRENT} concurrent submits with quota for ${AFFORDABLE}: exactly ${AFFORDABLE} accepted, never below zero`, async () => {
    const bob = await createUserClient(gw.t.app, gw.root, `bob-${dialect}`);
    await setQuota(gw.root, bob.userId!, AFFORDABLE * PRICE);
    const { key } = await addToken(gw.t, bob.userId!);
    const results = await Promise.allSettled(Array.from({ length: CONCURRENT }, (_, i) => submit(`never ${i}`, key)));
    const ok = results.filter((r) => r.status === 'fulfilled' && r.value.ok);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(AFFORDABLE);
    expect(refused).toHaveLength(CONCURRENT - AFFORDABLE);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RelayError);
    expect(await ctx().relay.ledger.available('users', bob.userId!)).toBe(0);
    expect(await userQuota(gw.t, bob.userId!)).toBe(0);
    const rows = await gw.t.database.db.kysely
      .selectFrom('tasks')
      .select('id')
      .where('user_id', '=', bob.userId!)
      .execute();
    expect(rows).toHaveLength(AFFORDABLE);
  });

  it('restart mid-task: a new process on the same database resumes polling (the lease of the dead one expires)', async () => {
    const task = await accepted('a slow one');
    // The first process stops polling without giving up its lease, as a killed one would.
    await gw.t.runtime.taskPoller.job.stop();
    const next = await startTestApp(dialect, { TASK_POLL_INTERVAL_MS: String(POLL_MS) }, gw.t.database);
    try {
      const row = await settledRow(task.id);
      expect(row!.status).toBe(TaskStatus.Success);
      expect(gw.mock.fetches.get(task.upstreamTaskId)).toBeGreaterThanOrEqual(2);
    } finally {
      await next.close();
    }
  });
});
