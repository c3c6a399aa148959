import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { sqliteBatchStatements } from '../../src/accounting/writer-sqlite.js';
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
        fast.insertLogs([logRow({ request_id: 'rolled-back' })]);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await d.db.kysely.selectFrom('logs').select('id').where('request_id', '=', 'rolled-back').execute()).toEqual(
      [],
    );
  });
});
