import type { Insertable } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LogsTable } from '../../src/db/schema.js';
import { LogRetention } from '../../src/modules/logs/retention.js';
import { createUserClient, startTestApp, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { spiedLogsStore } from '../support/delete-spy.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

const DAY = 86_400;

describe.each(dialects)('log retention on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  const now = Math.floor(Date.now() / 1000);

  const row = (created_at: number, over: Partial<Insertable<LogsTable>> = {}): Insertable<LogsTable> => ({
    user_id: 1,
    created_at,
    type: 2,
    content: '',
    username: 'old',
    token_name: '',
    model_name: 'gpt-4o',
    quota: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    use_time: 1,
    is_stream: 0,
    channel_id: 1,
    channel_name: '',
    token_id: 0,
    group: 'default',
    ip: '',
    request_id: '',
    other: '',
    ...over,
  });
  const insertRows = async (n: number, at: (i: number) => number) => {
    const k = t.database.db.kysely;
    for (let i = 0; i < n; i += 500) {
      await k
        .insertInto('logs')
        .values(Array.from({ length: Math.min(500, n - i) }, (_, j) => row(at(i + j))))
        .execute();
    }
  };
  const count = async () =>
    Number(
      (
        await t.database.db.kysely
          .selectFrom('logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const setDays = async (days: number) =>
    expect(
      (await root.call('PUT', '/api/option/', { key: 'LogRetentionDays', value: String(days) })).body.success,
    ).toBe(true);

  /** A retention job over a store whose DELETE statements are recorded (rows per statement). */
  const spiedRetention = (timing: { batch: number; pauseMs: number }) => {
    const { store, deletedPerStatement: perStatement } = spiedLogsStore(t.runtime.ctx.db);
    const job = new LogRetention(store, t.runtime.ctx.options, pino({ level: 'silent' }), {
      intervalMs: 60_000,
      firstDelayMs: 60_000,
      ...timing,
    });
    return { job, perStatement };
  };

  useGateway(dialect, { mock: () => startMockUpstream({ record: false }) }, (gw) => ({ t, mock, root, base } = gw));

  it('is scheduled on the master node; LogRetentionDays 0 keeps everything', async () => {
    expect(t.runtime.logRetention).toBeInstanceOf(LogRetention);
    await insertRows(30, (i) => now - 400 * DAY - i);
    await setDays(0);
    expect(await t.runtime.logRetention!.runOnce()).toBe(0);
    expect(await count()).toBe(30);
    await t.database.db.kysely.deleteFrom('logs').execute();
  });

  it('deletes rows older than N days in batches of at most the batch size and keeps the recent ones', async () => {
    await setDays(7);
    await insertRows(2500, (i) => now - 30 * DAY + i);
    await insertRows(40, (i) => now - 6 * DAY + i);
    await insertRows(10, (i) => now - i);
    const { job, perStatement } = spiedRetention({ batch: 1000, pauseMs: 5 });
    expect(await job.runOnce(now)).toBe(2500);
    expect(perStatement).toEqual([1000, 1000, 500]);
    expect(await count()).toBe(50);
    const oldest = await t.database.db.kysely
      .selectFrom('logs')
      .select((eb) => eb.fn.min('created_at').as('m'))
      .executeTakeFirstOrThrow();
    expect(Number(oldest.m)).toBeGreaterThanOrEqual(now - 7 * DAY);
    expect(await job.runOnce(now)).toBe(0);
    await t.database.db.kysely.deleteFrom('logs').execute();
  });

  it('relayed calls keep being served and logged while a large pass runs', async () => {
    await setDays(7);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'keep-model': 0.001 }) });
    await addChannel(root, { name: 'keep', key: 'keep-key', baseUrl: mock.url, models: 'keep-model' });
    const user = await createUserClient(t.app, root, 'relay-user');
    await setQuota(root, user.userId!, 1_000_000);
    const { key } = await addToken(t, user.userId!, {});
    await insertRows(12_000, (i) => now - 20 * DAY + i);

    const { job, perStatement } = spiedRetention({ batch: 1000, pauseMs: 40 });
    let passDone = false;
    const pass = job.runOnce().then((n) => ((passDone = true), n));
    const statuses: number[] = [];
    let servedDuringPass = 0;
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'keep-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
      if (!passDone) servedDuringPass++;
    }
    expect(await pass).toBe(12_000);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The pass was still deleting while calls were served (so they ran side by side).
    expect(servedDuringPass).toBeGreaterThan(0);
    expect(Math.max(...perStatement)).toBeLessThanOrEqual(1000);
    await drainWriter(t);
    const kept = await t.database.db.kysely
      .selectFrom('logs')
      .select(['quota'])
      .where('user_id', '=', user.userId!)
      .where('type', '=', 2)
      .execute();
    expect(kept).toHaveLength(15);
    expect(kept.reduce((s, r) => s + Number(r.quota), 0)).toBe(15 * 500);
    expect(await count()).toBe(15);
  });

  it('stop() ends a pass after its current batch', async () => {
    await insertRows(3000, (i) => now - 20 * DAY + i);
    const { job, perStatement } = spiedRetention({ batch: 500, pauseMs: 50 });
    const pass = job.runOnce(now);
    while (perStatement.length === 0) await new Promise((r) => setTimeout(r, 5));
    await job.stop();
    const deleted = await pass;
    expect(deleted).toBeLessThan(3000);
    expect(deleted).toBe(perStatement.reduce((s, n) => s + n, 0));
    expect(await job.runOnce(now)).toBe(0);
  });
});

describe('log retention on a slave node', () => {
  it('is not scheduled', async () => {
    const t = await startTestApp('sqlite', { NODE_TYPE: 'slave' });
    try {
      expect(t.runtime.logRetention).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
