import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { sqliteBatchStatements } from '../../src/accounting/writer-sqlite.js';
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
    const got = await d.db.kysely.selectFrom('logs').select(['request_id', 'quota', 'other']).where('request_id', 'like', 'w%').orderBy('id').execute();
    expect(got).toEqual(rows.map((r, i) => ({ request_id: `w${i}`, quota: i, other: r.other ?? '' })));
  });

  it('roll back with the Kysely transaction they run in', async () => {
    const fast = sqliteBatchStatements(d.db.sqlite!);
    await expect(
      d.db.kysely.transaction().execute(async () => {
        fast.insertLogs([logRow({ request_id: 'rolled-back' })]);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await d.db.kysely.selectFrom('logs').select('id').where('request_id', '=', 'rolled-back').execute()).toEqual([]);
  });
});
