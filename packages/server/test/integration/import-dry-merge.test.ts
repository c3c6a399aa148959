import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Db } from '../../src/db/connect.js';
import { migrateToLatest, migrateUpTo } from '../../src/db/migrate.js';
import { EXIT, importCommand } from '../../src/import/cli.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { startTestApp } from '../support/app.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { createSourceSchema, NEW_API, type AnyKysely } from '../support/newapi-schema.js';
import { CHECKIN_DAYS, newApiKey, seedNewApi } from '../support/newapi-rows.js';
import { userRow } from '../support/user-row.js';

const CRYPTO_SECRET = 'import-dry-merge-secret-0123456789ab';
/** The source root's quota in the new-api seed. */
const SOURCE_ROOT_QUOTA = 100000000;
const TARGET_ROOT_QUOTA = 10;

/** Every table of a database with its row count: equal before and after means nothing was written. */
async function census(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of await db.kysely.introspection.getTables()) {
    const row = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ${sql.table(t.name)}`.execute(db.kysely);
    out[t.name] = Number(row.rows[0]?.n ?? 0);
  }
  return out;
}

/** Scratch databases a dry run left behind (there must be none). */
async function leftovers(db: Db): Promise<string[]> {
  if (db.dialect === 'sqlite') return [];
  const q =
    db.dialect === 'postgres'
      ? sql<{ n: string }>`SELECT datname AS n FROM pg_database WHERE datname LIKE 'tollway_dry_run_%'`
      : sql<{
          n: string;
        }>`SELECT SCHEMA_NAME AS n FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'tollway_dry_run_%'`;
  return (await q.execute(db.kysely)).rows.map((r) => r.n);
}

/** The summary without its first line (mode) and last (rows written / would be written). */
const body = (out: string) => out.trim().split('\n').slice(1, -1).join('\n');

describe.each(dialects)('npm run import: dry run, merge mapping, what is carried, exit codes on %s', (dialect) => {
  let source: TestDatabase, mock: MockUpstream, dir: string, rootKey: string;
  /** The target the first test imported into (the next one goes on with it). */
  let imported: TestDatabase;
  /** The empty database an older Tollway left (migrated part way): the merge test migrates it the rest of the way. */
  let older: TestDatabase;
  const targets: TestDatabase[] = [];
  const env = (target: TestDatabase | string) => ({
    DATA_DIR: dir,
    CRYPTO_SECRET,
    ...(typeof target === 'string' ? { SQLITE_PATH: target } : { SQL_DSN: target.dsn }),
  });
  const cmd = async (target: TestDatabase | string, ...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await importCommand(['--from', source.dsn, ...argv], env(target), {
      out: (t) => (out += t),
      err: (t) => (err += t),
    });
    return { code, out, err };
  };
  const target = async () => {
    const t = await createTestDatabase(dialect);
    targets.push(t);
    return t;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-import-dry-'));
    mock = await startMockUpstream();
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, NEW_API);
    await seedNewApi(source.db.kysely, dialect, mock.url);
    // The old root's own key (issue 34: lost on a merge).
    rootKey = newApiKey();
    await (source.db.kysely as unknown as AnyKysely)
      .insertInto('tokens')
      .values({
        id: 9,
        user_id: 1,
        key: rootKey,
        name: 'root-key',
        created_time: 1_700_000_000,
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: dialect === 'postgres' ? true : 1,
        group: '',
      })
      .execute();
  });
  afterAll(async () => {
    for (const t of targets) await t.drop();
    await source?.drop();
    await mock?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a dry run into a new database creates and migrates nothing, and reports what the real run then writes', async () => {
    const file = path.join(dir, 'fresh.db');
    const server = dialect === 'sqlite' ? undefined : await target();
    const before = server ? await census(server.db) : {};
    const dry = await cmd(server ?? file, '--dry-run');
    expect(dry.err).not.toContain('tollway import:');
    expect(dry.code).toBe(EXIT.ok);
    expect(dry.out).toContain('mode: fresh (dry run: nothing written');
    // Every table is predicted as the real run writes it (issue 34: tokens and two_factor were "skipped").
    expect(dry.out).toContain('tokens: read 4, written 4, already present 0, skipped 0');
    expect(dry.out).toContain('two_factor: read 1, written 1');
    if (server) {
      expect(await census(server.db)).toEqual(before);
      expect(before).toEqual({});
      expect(await leftovers(server.db)).toEqual([]);
    } else expect(fs.existsSync(file)).toBe(false);

    const real = await cmd(server ?? file);
    expect(real.code).toBe(EXIT.ok);
    expect(body(dry.out)).toEqual(body(real.out));
    expect(real.out).toMatch(/row\(s\) written\.$/m);
    expect(real.out).toContain('checkins: read 2, written 2, already present 0, skipped 0');
    imported = server ?? {
      dialect,
      dsn: `sqlite:${file}`,
      db: await connectDatabase('', file),
      drop: async () => undefined,
    };
    if (!server) targets.push({ ...imported, drop: () => imported.db.close() });
  });

  it('a dry run into a database an older Tollway left migrates nothing there', async () => {
    const t = (older = await target());
    await migrateUpTo(t.db, '0010_user_identities');
    const before = await census(t.db);
    const dry = await cmd(t, '--dry-run');
    if (dialect === 'sqlite') {
      // SQLite: the file is copied into memory and the copy migrated.
      expect(dry.err).not.toContain('tollway import:');
      expect(dry.code).toBe(EXIT.ok);
      expect(dry.out).toContain('users: read 4, written 4');
    } else {
      // A server database cannot be copied cheaply, and MySQL cannot roll back a migration: refused, untouched.
      expect(dry.code).toBe(EXIT.refused);
      expect(dry.err).toContain('is not migrated to this version of Tollway');
    }
    expect(await census(t.db)).toEqual(before);
    expect(await leftovers(t.db)).toEqual([]);
  });

  it('carries check-ins, lists every field not carried, and a re-run with nothing to do exits 0', async () => {
    const t = imported;
    const checkins = await t.db.kysely
      .selectFrom('checkins')
      .select(['user_id', 'day', 'quota'])
      .orderBy('id')
      .execute();
    expect(checkins.map((c) => [c.user_id, c.day, Number(c.quota)])).toEqual([
      [2, CHECKIN_DAYS[0], 1500],
      [3, CHECKIN_DAYS[1], 800],
    ]);
    // Printed per row (the source id) and in the closing list.
    const dry0 = await cmd(t, '--dry-run');
    expect(dry0.err).not.toContain('tollway import:');
    expect(dry0.out).toMatch(/not mapped in 1 row\(s\): users\.last_login_at: Tollway keeps no last sign-in.*\(id 2\)/);
    expect(dry0.out).toMatch(/users\.discord_id: Tollway has no such sign-in.*\(id 3\)/);
    expect(dry0.out).toContain('users.stripe_customer: Tollway does not keep Stripe customer ids');
    // Tokens keep new-api's cross-group retry switch.
    const bob = await t.db.kysely.selectFrom('tokens').select('cross_group_retry').where('id', '=', 2).execute();
    expect(bob).toEqual([{ cross_group_retry: 1 }]);

    // Alice spends in Tollway; the re-run leaves her alone, changes nothing and succeeds.
    await t.db.kysely.updateTable('users').set({ quota: 1 }).where('id', '=', 2).execute();
    const before = await census(t.db);
    const dry = await cmd(t, '--dry-run');
    expect(dry.code).toBe(EXIT.ok);
    expect(dry.out).toContain('Nothing would change');
    expect(await census(t.db)).toEqual(before);
    const again = await cmd(t);
    expect(again.code).toBe(EXIT.ok);
    expect(again.out).toContain('mode: rerun');
    expect(again.out).toContain('Nothing changed');
    expect(again.out).toMatch(/quota check users\.quota: not compared: 4 row\(s\) were already there/);
    expect(await census(t.db)).toEqual(before);
    expect((await cmd(t, '--bogus')).code).toBe(EXIT.refused);
    expect((await cmd(t, '--merge-root')).code).toBe(EXIT.refused);
  });

  it("--merge into a Tollway set up with its own root: refused unless mapped; --merge-root keeps the old root's quota and key", async () => {
    const t = older;
    await migrateToLatest(t.db);
    const k = t.db.kysely;
    await k
      .insertInto('users')
      .values(userRow('staff', { aff_code: 'staff1' }))
      .execute();
    await k
      .insertInto('users')
      .values(userRow('root', { role: 100, quota: TARGET_ROOT_QUOTA, aff_code: 'tgtroot' }))
      .execute();
    const targetRoot = (
      await k.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow()
    ).id;
    const empty = await census(t.db);

    const refused = await cmd(t, '--merge');
    expect(refused.code).toBe(EXIT.refused);
    // The source's id is named (not a shifted one), with the money at stake and the way out.
    expect(refused.err).toContain(
      `source user id 1 "root" (quota ${SOURCE_ROOT_QUOTA}): the name is target user ${targetRoot}'s`,
    );
    expect(refused.err).toContain('--merge-root');
    expect(await census(t.db)).toEqual(empty);

    const dry = await cmd(t, '--merge', '--merge-root', '--dry-run');
    expect(dry.code).toBe(EXIT.ok);
    expect(await census(t.db)).toEqual(empty);
    expect(await leftovers(t.db)).toEqual([]);

    const merged = await cmd(t, '--merge', '--merge-root');
    expect(merged.code).toBe(EXIT.ok);
    expect(body(dry.out)).toEqual(body(merged.out));
    expect(merged.out).toContain(
      `merged source user id 1 "root" into target user ${targetRoot}: quota +${SOURCE_ROOT_QUOTA}`,
    );
    expect(merged.out).not.toContain('is not in the target');
    const root = await k.selectFrom('users').select(['quota', 'role']).where('id', '=', targetRoot).executeTakeFirst();
    expect({ quota: Number(root?.quota), role: root?.role }).toEqual({
      quota: TARGET_ROOT_QUOTA + SOURCE_ROOT_QUOTA,
      role: 100,
    });
    const box = new SecretBox(CRYPTO_SECRET);
    const token = await k
      .selectFrom('tokens')
      .select('user_id')
      .where('key', '=', box.sealFixed(rootKey))
      .executeTakeFirstOrThrow();
    expect(token.user_id).toBe(targetRoot);

    // A second run credits nothing twice.
    const again = await cmd(t, '--merge', '--merge-root');
    expect(again.code).toBe(EXIT.ok);
    expect(again.out).toContain('Nothing changed');
    const quota = await k.selectFrom('users').select('quota').where('id', '=', targetRoot).executeTakeFirstOrThrow();
    expect(Number(quota.quota)).toBe(TARGET_ROOT_QUOTA + SOURCE_ROOT_QUOTA);

    // The old root's sk- key relays as the merged root.
    const app = await startTestApp(dialect, { CRYPTO_SECRET }, t);
    try {
      const res = await app.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer sk-${rootKey}`, 'content-type': 'application/json' },
        payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().choices[0].message.content).toBe('Hello from the mock!');
    } finally {
      await app.close();
    }
  });
});
