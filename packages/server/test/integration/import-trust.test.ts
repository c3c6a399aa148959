import pino from 'pino';
import { QUOTA_MAX } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { runImport, type ImportResult } from '../../src/import/run.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { createSourceSchema, NEW_API, type AnyKysely } from '../support/newapi-schema.js';
import { newApiKey, seedNewApi } from '../support/newapi-rows.js';

const log = pino({ level: 'silent' });
const box = new SecretBox('import-trust-crypto-secret-0123456789');
const report = (r: ImportResult, table: string) => r.reports.find((x) => x.table === table)!;
const lines = (r: ImportResult, table: string) => report(r, table).lines().join('\n');

/**
 * Imports go through the API's rules (issue 31, hole 11): roles in {1, 10, 100} with one root, quotas whole
 * numbers from 0 to QUOTA_MAX; every refusal is listed with its row.
 */
describe.each(dialects)('import of hostile new-api rows on %s', (dialect) => {
  let source: TestDatabase;
  /** Quotas no Tollway balance may hold; 1e300 and 1.5 only fit SQLite's columns (PostgreSQL and MySQL refuse them). */
  const badQuotas = dialect === 'sqlite' ? [1e300, 1.5, -5_000_000] : [-5_000_000];

  beforeAll(async () => {
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, NEW_API);
    await seedNewApi(source.db.kysely, dialect, 'http://127.0.0.1:9');
    // The source is new-api's schema, not Tollway's.
    const k = source.db.kysely as unknown as AnyKysely;
    await k
      .insertInto('users')
      .values({ id: 10, username: 'boss', password: 'x', role: 1000, quota: 5, aff_code: 'b0ss' })
      .execute();
    await k
      .insertInto('users')
      .values({ id: 11, username: 'second-root', password: 'x', role: 100, quota: 7, aff_code: 'r00t2' })
      .execute();
    for (const [i, quota] of badQuotas.entries()) {
      await k
        .insertInto('users')
        .values({ id: 20 + i, username: `bad-quota-${i}`, password: 'x', role: 1, quota, aff_code: `bq${i}` })
        .execute();
    }
    await k
      .insertInto('tokens')
      .values({
        id: 10,
        user_id: 10,
        key: newApiKey(),
        name: 'overdrawn',
        remain_quota: -20,
        unlimited_quota: dialect === 'sqlite' ? 0 : false,
      })
      .execute();
  });
  afterAll(async () => source?.drop());

  const fresh = async () => {
    const target = await createTestDatabase(dialect);
    await migrateToLatest(target.db);
    return target;
  };

  it('keeps one root, demotes other roles to a common user, refuses quotas out of range, each refusal listed by row', async () => {
    const target = await fresh();
    try {
      const result = await runImport({ from: source.dsn, target: target.db, box, log });
      const k = target.db.kysely;
      const users = await k.selectFrom('users').select(['id', 'username', 'role', 'quota']).orderBy('id').execute();
      // One root: the source's first; role 1000 and the second root become common users.
      expect(users.filter((u) => u.role === 100).map((u) => u.username)).toEqual(['root']);
      expect(users.find((u) => u.username === 'boss')!.role).toBe(1);
      expect(users.find((u) => u.username === 'second-root')!.role).toBe(1);
      for (const u of users) expect(new Set([1, 10, 100]).has(u.role), u.username).toBe(true);
      // No balance outside 0..QUOTA_MAX or fractional: those rows are refused.
      for (const u of users) {
        expect(
          Number.isInteger(Number(u.quota)) && Number(u.quota) >= 0 && Number(u.quota) <= QUOTA_MAX,
          u.username,
        ).toBe(true);
      }
      expect(users.some((u) => u.username.startsWith('bad-quota-'))).toBe(false);
      const text = lines(result, 'users');
      expect(text).toMatch(/refused id 10: role 1000 is not a Tollway role/);
      expect(text).toMatch(/refused id 11: a second root/);
      for (const [i, quota] of badQuotas.entries())
        expect(text, String(quota)).toMatch(new RegExp(`refused id ${20 + i}: quota `));
      // A token overdrawn in the source stays exhausted (0), never gains a limit; listed too.
      const token = await k
        .selectFrom('tokens')
        .select('remain_quota')
        .where('name', '=', 'overdrawn')
        .executeTakeFirstOrThrow();
      expect(Number(token.remain_quota)).toBe(0);
      expect(lines(result, 'tokens')).toMatch(/refused id 10: remain_quota -20/);
    } finally {
      await target.drop();
    }
  });

  it('--merge makes the source root a common user: the target keeps its one root', async () => {
    const target = await fresh();
    try {
      const k = target.db.kysely;
      await k
        .insertInto('users')
        .values({
          ...{
            username: 'target-root',
            password: 'x',
            display_name: '',
            role: 100,
            status: 1,
            email: '',
            github_id: '',
            oidc_id: '',
            wechat_id: '',
          },
          ...{
            telegram_id: '',
            linux_do_id: '',
            access_token: null,
            quota: 10,
            used_quota: 0,
            request_count: 0,
            group: 'default',
            aff_code: 'tgt1',
          },
          ...{
            aff_count: 0,
            aff_quota: 0,
            aff_history: 0,
            inviter_id: 0,
            setting: '',
            remark: '',
            created_at: 0,
            deleted_at: null,
          },
        })
        .execute();
      const merged = await runImport({ from: source.dsn, target: target.db, box, log, merge: true });
      expect(merged.mode).toBe('merge');
      const roots = await k.selectFrom('users').select('username').where('role', '>=', 100).execute();
      expect(roots).toEqual([{ username: 'target-root' }]);
      expect(
        (await k.selectFrom('users').select('role').where('username', '=', 'root').executeTakeFirstOrThrow()).role,
      ).toBe(1);
      expect(lines(merged, 'users')).toMatch(/refused id 1: the source's root joins a database that has its own root/);
    } finally {
      await target.drop();
    }
  });
});
