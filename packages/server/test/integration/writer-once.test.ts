import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableWriter, type WriteRecord } from '../../src/accounting/writer.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { userRow } from '../support/user-row.js';
import { logRow } from '../support/log-row.js';

const log = pino({ level: 'silent' });
const START = 100_000;
const PRICE = 5_000;

/**
 * A task's charge and refund apply once per row, whatever copies reach the writer (a refund sent again by the
 * poller's sweep, a replay, another node), and a refund only after the charge; a separate log database takes
 * exactly the records the main one applied.
 */
describe.each(dialects)('writer once-per-row records on %s', (dialect) => {
  let d: TestDatabase;
  let logs: TestDatabase;
  let dir: string;
  let uid: number;
  beforeAll(async () => {
    d = await createTestDatabase(dialect);
    logs = await createTestDatabase(dialect);
    await migrateToLatest(d.db);
    await migrateToLatest(logs.db);
    await d.db.kysely
      .insertInto('users')
      .values(userRow('once', { quota: START, aff_code: 'once01' }))
      .execute();
    uid = (await d.db.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-once-'));
  });
  afterAll(async () => {
    await d?.drop();
    await logs?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function newTask(): Promise<number> {
    const values = {
      task_id: `task_${Math.random()}`,
      platform: 'suno',
      user_id: uid,
      channel_id: 0,
      quota: PRICE,
      action: 'MUSIC',
      status: 'FAILURE',
      fail_reason: '',
      submit_time: 1,
      start_time: 0,
      finish_time: 0,
      progress: '100%',
      data: '',
    };
    if (d.db.dialect === 'mysql')
      return Number((await d.db.kysely.insertInto('tasks').values(values).executeTakeFirstOrThrow()).insertId);
    return (await d.db.kysely.insertInto('tasks').values(values).returning('id').executeTakeFirstOrThrow()).id;
  }
  const rec = (taskId: number, quota: number, column: 'charge_batch' | 'refund_batch', tag: string): WriteRecord => ({
    userId: uid,
    tokenId: 0,
    tokenLimited: false,
    channelId: 0,
    quota,
    countsRequest: false,
    once: { table: 'tasks', id: taskId, column },
    log: logRow({
      user_id: uid,
      type: 3,
      content: tag,
      username: 'once',
      model_name: 'suno_music',
      quota,
      request_id: tag,
    }),
  });
  const quota = async () =>
    Number(
      (await d.db.kysely.selectFrom('users').select('quota').where('id', '=', uid).executeTakeFirstOrThrow()).quota,
    );
  const logCount = async (db: TestDatabase, tag: string) =>
    (await db.db.kysely.selectFrom('logs').select('id').where('request_id', 'like', `${tag}%`).execute()).length;

  it('a charge applies once, refunds applied once after it; copies in one batch and in later batches are dropped and reported', async () => {
    const before = await quota();
    const task = await newTask();
    const dropped: WriteRecord[] = [];
    const w = new DurableWriter(d.db, { dataDir: path.join(dir, 'a'), log, onDropped: (rs) => dropped.push(...rs) });
    await w.start();
    // A refund before its charge is dropped (nothing to give back yet).
    w.enqueue(rec(task, -PRICE, 'refund_batch', 'a-early-refund'));
    await w.flush();
    expect(dropped).toHaveLength(1);
    w.enqueue(rec(task, PRICE, 'charge_batch', 'a-charge'));
    w.enqueue(rec(task, PRICE, 'charge_batch', 'a-charge-copy'));
    w.enqueue(rec(task, -PRICE, 'refund_batch', 'a-refund'));
    w.enqueue(rec(task, -PRICE, 'refund_batch', 'a-refund-copy'));
    await w.flush();
    w.enqueue(rec(task, -PRICE, 'refund_batch', 'a-refund-later'));
    await w.stop();
    expect(await quota()).toBe(before);
    expect(dropped.map((r) => r.log!.content)).toEqual([
      'a-early-refund',
      'a-charge-copy',
      'a-refund-copy',
      'a-refund-later',
    ]);
    expect(await logCount(d, 'a-')).toBe(2);
    const row = await d.db.kysely
      .selectFrom('tasks')
      .select(['charge_batch', 'refund_batch'])
      .where('id', '=', task)
      .executeTakeFirstOrThrow();
    expect(row.charge_batch).not.toBe('');
    expect(row.refund_batch).not.toBe('');
  });

  it('a refund left in the journal by a crash and its copy sent again after the restart apply once', async () => {
    const before = await quota();
    const task = await newTask();
    const jdir = path.join(dir, 'b');
    // The "dead" writer never flushes on its own: a crashed process does nothing more to the journal.
    const first = new DurableWriter(d.db, { dataDir: jdir, log, flushIntervalMs: 3_600_000 });
    await first.start();
    first.enqueue(rec(task, PRICE, 'charge_batch', 'b-charge'));
    await first.flush();
    // The flush ends with the applied segment deleted: nothing of the dead writer races the restart's read.
    expect(fs.existsSync(path.join(jdir, 'journal', '000000000000.jsonl'))).toBe(false);
    // The refund is durable (an open call's line) but never applied: the process dies here.
    await first.begin('refund-b', rec(task, -PRICE, 'refund_batch', 'b-refund'));
    const second = new DurableWriter(d.db, { dataDir: jdir, log });
    await second.start();
    second.enqueue(rec(task, -PRICE, 'refund_batch', 'b-refund-again'));
    await second.stop();
    expect(await quota()).toBe(before);
    expect(await logCount(d, 'b-refund')).toBe(1);
  });

  it('with a separate log database, the logs of dropped copies are not written there either', async () => {
    const task = await newTask();
    const w = new DurableWriter(d.db, { dataDir: path.join(dir, 'c'), logDb: logs.db, log });
    await w.start();
    w.enqueue(rec(task, PRICE, 'charge_batch', 'c-charge'));
    w.enqueue(rec(task, -PRICE, 'refund_batch', 'c-refund'));
    w.enqueue(rec(task, -PRICE, 'refund_batch', 'c-refund-copy'));
    await w.stop();
    expect(await logCount(logs, 'c-')).toBe(2);
    expect(await logCount(logs, 'c-refund-copy')).toBe(0);
  });
});
