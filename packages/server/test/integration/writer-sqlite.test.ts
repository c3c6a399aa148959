import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { sqliteBatchStatements } from '../../src/accounting/writer-sqlite.js';
import { TimeSlicer } from '../../src/lib/time-slice.js';
import { DbAnswerStore } from '../../src/relay/cache/db-store.js';
import { upsertHourlyUsage, type HourlyUsage } from '../../src/accounting/writer-hourly.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { logRow } from '../support/log-row.js';

describe('SQLite writer statements', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await createTestDatabase('sqlite');
    await migrateToLatest(d.db);
  });
  afterAll(async () => d?.drop());

  it('insert every log row once, in order, across chunk sizes and column sets; an undefined column takes its default', async () => {
    const rows = Array.from({ length: 301 }, (_, i) => {
      const row = logRow({ request_id: `w${i}`, quota: i, other: `{"n":${i}}` });
      // Runs of rows without `other` split the batch into groups of other columns.
      return i % 50 < 7 ? { ...row, other: undefined as unknown as string } : row;
    });
    const fast = sqliteBatchStatements(d.db.sqlite!);
    await d.db.kysely.transaction().execute(async () => fast.insertLogs(rows));
    const got = await d.db.kysely
      .selectFrom('logs')
      .select(['request_id', 'quota', 'other'])
      .where('request_id', 'like', 'w%')
      .orderBy('id')
      .execute();
    expect(got).toEqual(rows.map((r, i) => ({ request_id: `w${i}`, quota: i, other: r.other ?? '' })));
  });

  it('add hourly sums to quota_data exactly as the Kysely upsert does (new rows made, existing rows added to)', async () => {
    const hour = 1_795_960_800;
    const first: HourlyUsage[] = [
      { user_id: 1, username: 'a', model_name: 'm1', created_at: hour, token_used: 10, count: 1, quota: 100 },
      { user_id: 1, username: 'a', model_name: 'm2', created_at: hour, token_used: 20, count: 2, quota: 200 },
    ];
    const second: HourlyUsage[] = [
      { user_id: 1, username: 'a2', model_name: 'm1', created_at: hour, token_used: 5, count: 3, quota: 7 },
      { user_id: 2, username: 'b', model_name: 'm1', created_at: hour + 3600, token_used: 1, count: 1, quota: 1 },
    ];
    const fast = sqliteBatchStatements(d.db.sqlite!);
    const read = () =>
      d.db.kysely
        .selectFrom('quota_data')
        .select(['user_id', 'username', 'model_name', 'created_at', 'token_used', 'count', 'quota'])
        .orderBy('id')
        .execute();
    await d.db.kysely.transaction().execute(async () => fast.upsertHourly(first));
    await d.db.kysely.transaction().execute(async () => fast.upsertHourly(second));
    const viaStatements = await read();
    await d.db.kysely.deleteFrom('quota_data').execute();
    await d.db.kysely.transaction().execute((trx) => upsertHourlyUsage(trx, 'sqlite', first));
    await d.db.kysely.transaction().execute((trx) => upsertHourlyUsage(trx, 'sqlite', second));
    expect(viaStatements).toEqual(await read());
    expect(viaStatements).toEqual([
      { user_id: 1, username: 'a2', model_name: 'm1', created_at: hour, token_used: 15, count: 4, quota: 107 },
      { user_id: 1, username: 'a', model_name: 'm2', created_at: hour, token_used: 20, count: 2, quota: 200 },
      { user_id: 2, username: 'b', model_name: 'm1', created_at: hour + 3600, token_used: 1, count: 1, quota: 1 },
    ]);
  });

  it('roll back with the Kysely transaction they run in', async () => {
    const fast = sqliteBatchStatements(d.db.sqlite!);
    await expect(
      d.db.kysely.transaction().execute(async () => {
        await fast.insertLogs([logRow({ request_id: 'rolled-back' })]);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await d.db.kysely.selectFrom('logs').select('id').where('request_id', '=', 'rolled-back').execute()).toEqual(
      [],
    );
  });

  it('sliced, give the event loop turns inside the transaction: another query waits for the commit, a rollback undoes every slice', async () => {
    const fast = sqliteBatchStatements(d.db.sqlite!);
    const count = async (prefix: string) =>
      (
        await d.db.kysely
          .selectFrom('logs')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where('request_id', 'like', `${prefix}%`)
          .executeTakeFirstOrThrow()
      ).n;
    const rows = (prefix: string) => Array.from({ length: 100 }, (_, i) => logRow({ request_id: `${prefix}${i}` }));
    // Counts the event loop's turns (one tick per check phase) while the batch runs.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    let seenMidway: number | undefined;
    let turnsDuring = 0;
    try {
      await d.db.kysely.transaction().execute(async () => {
        // A budget of 0: a turn after every statement (100 rows: 32 + 32 + 32 + 8 + 1 × 4, eight statements).
        setImmediate(tick);
        const inserting = fast.insertLogs(rows('sliced'), new TimeSlicer(0));
        // Issued while the batch yields: Kysely's one SQLite connection is the transaction's until it commits.
        void count('sliced').then((n) => (seenMidway = n));
        await inserting;
        turnsDuring = turns;
        expect(seenMidway).toBeUndefined();
      });
    } finally {
      ticking = false;
    }
    // Eight statements, a turn after each (the last one's continuation may run before the tick).
    expect(turnsDuring).toBeGreaterThanOrEqual(7);
    await expect.poll(() => seenMidway).toBe(100);
    expect(await count('sliced')).toBe(100);

    await expect(
      d.db.kysely.transaction().execute(async () => {
        await fast.insertLogs(rows('undone'), new TimeSlicer(0));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await count('undone')).toBe(0);
  });

  it('an answer cached while a batch yields stays out of its transaction: the batch’s rollback keeps it', async () => {
    const store = new DbAnswerStore(d.db);
    const answer = {
      model: 'gpt-4o-mini',
      status: 200,
      contentType: 'application/json',
      body: '{"ok":true}',
      usage: { promptTokens: 3, completionTokens: 5, reported: true },
      expiresAt: Date.now() + 60_000,
    };
    let stored: Promise<unknown> | undefined;
    await expect(
      d.db.kysely.transaction().execute(async () => {
        stored = store.put('kept-through-rollback', answer, 100);
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await stored;
    expect((await store.get('kept-through-rollback', Date.now()))?.body).toBe('{"ok":true}');
  });
});
