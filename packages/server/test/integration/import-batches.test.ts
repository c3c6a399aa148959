import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { BATCH } from '../../src/import/copy.js';
import { runImport } from '../../src/import/run.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { createSourceSchema, NEW_API, type AnyKysely } from '../support/newapi-schema.js';
import { seedNewApi } from '../support/newapi-rows.js';

/** More logs than two batches, with gaps in their ids. */
const EXTRA_LOGS = 2 * BATCH + 345;
const FIRST_EXTRA_ID = 10;
const ID_STEP = 3;
const INSERT_CHUNK = 200;

describe.each(dialects)('import in batches on %s', (dialect) => {
  let source: TestDatabase, target: TestDatabase;

  beforeAll(async () => {
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, NEW_API);
    await seedNewApi(source.db.kysely, dialect, 'http://127.0.0.1:9');
    const rows = Array.from({ length: EXTRA_LOGS }, (_, i) => ({
      id: FIRST_EXTRA_ID + i * ID_STEP,
      user_id: 2,
      created_at: 1_700_000_000 + i,
      type: 2,
      content: '',
      username: 'alice',
      model_name: 'gpt-4o-mini',
      quota: i,
      channel_id: 1,
      other: '',
    }));
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await (source.db.kysely as unknown as AnyKysely)
        .insertInto('logs')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    }
    // The same key twice, once with its sk- prefix: both become one key, and the database refuses the second.
    for (const [id, key, quota] of [
      [10, 'dupkey0123456789dupkey0123456789dupkey0123456789', 5],
      [11, 'sk-dupkey0123456789dupkey0123456789dupkey0123456789', 7],
    ] as const) {
      await (source.db.kysely as unknown as AnyKysely)
        .insertInto('tokens')
        .values({
          id,
          user_id: 2,
          key,
          name: `dup-${id}`,
          remain_quota: quota,
          unlimited_quota: dialect === 'sqlite' ? 0 : false,
          allow_ips: '',
          group: '',
        })
        .execute();
    }
    target = await createTestDatabase(dialect);
    await migrateToLatest(target.db);
  });
  afterAll(async () => {
    await target?.drop();
    await source?.drop();
  });

  it('copies every row across batch boundaries and id gaps, with a progress line per table', async () => {
    const lines: string[] = [];
    const result = await runImport({
      from: source.dsn,
      target: target.db,
      box: new SecretBox(undefined),
      log: pino({ level: 'silent' }),
      progress: (l) => lines.push(l),
    });
    const tokens = result.reports.find((r) => r.table === 'tokens')!;
    expect(tokens).toMatchObject({ read: 5, written: 4 });
    expect(
      [...tokens.skipped.entries()].map(([reason, s]) => [reason.startsWith('refused by the database: '), s.examples]),
    ).toEqual([[true, ['id 11']]]);
    expect(result.quota.find((q) => q.label === 'tokens.remain_quota')).toMatchObject({ skipped: 7, ok: true });
    const logs = result.reports.find((r) => r.table === 'logs')!;
    expect(logs).toMatchObject({ read: EXTRA_LOGS + 3, written: EXTRA_LOGS + 3 });
    const total = EXTRA_LOGS + 3;
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^logs: ${total}/${total} \\(100%\\) \\d+ rows/s ETA 0s$`)),
    );
    const k = target.db.kysely;
    const stats = await k
      .selectFrom('logs')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.max('id').as('max'),
        eb.fn.sum<number>('quota').as('quota'),
      ])
      .executeTakeFirstOrThrow();
    const extraQuota = (EXTRA_LOGS * (EXTRA_LOGS - 1)) / 2;
    expect(Number(stats.n)).toBe(total);
    expect(Number(stats.max)).toBe(FIRST_EXTRA_ID + (EXTRA_LOGS - 1) * ID_STEP);
    expect(Number(stats.quota)).toBe(extraQuota + 100 + 2000 + 5000000);
  });

  it('a run cut short is completed by the next one: the rows it had not written yet, nothing else', async () => {
    const k = target.db.kysely;
    // As if the process died during the logs' third batch, and during the tasks.
    const cut = FIRST_EXTRA_ID + (2 * BATCH + 10) * ID_STEP;
    const lost = Number(
      (
        await k
          .selectFrom('logs')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('id', '>', cut)
          .executeTakeFirstOrThrow()
      ).n,
    );
    await k.deleteFrom('logs').where('id', '>', cut).execute();
    await k.deleteFrom('tasks').where('id', '>', 1).execute();
    const again = await runImport({
      from: source.dsn,
      target: target.db,
      box: new SecretBox(undefined),
      log: pino({ level: 'silent' }),
    });
    expect(again.mode).toBe('rerun');
    expect(again.reports.find((r) => r.table === 'logs')).toMatchObject({
      written: lost,
      present: EXTRA_LOGS + 3 - lost,
    });
    expect(again.reports.find((r) => r.table === 'tasks')).toMatchObject({ written: 3, present: 1 });
    expect(again.written).toBe(lost + 3);
    expect(
      Number(
        (
          await k
            .selectFrom('logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(EXTRA_LOGS + 3);
  });
});
