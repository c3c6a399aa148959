import { ErrorCode } from '@tollway/shared';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { runImport, type ImportResult } from '../../src/import/run.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { Client, startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { createSourceSchema, NEW_API } from '../support/newapi-schema.js';
import { BOB_TOTP_SECRET, goBcrypt, inserter, seedNewApi } from '../support/newapi-rows.js';
import { enableTwoFactor, secondStep, TotpClock, type Challenge } from '../support/twofa.js';

const CRYPTO_SECRET = 'import-twofa-codes-secret-0123456789ab';
const log = pino({ level: 'silent' });
/** Bob's (source user 3) codes as new-api showed them: the seed's ABCD-EFGH and one more, both unused. */
const BOB_CODE = 'ABCD-EFGH';
const BOB_SECOND = 'WXYZ-2345';
const BOB_USED = 'USED-C0DE';
const BOB_REPLACED = 'OLDC-0DE1';
/** Alice (source user 2) has a code row but no authenticator in the source. */
const ALICE_CODE = 'ALIC-E123';
const TABLE = 'two_factor_backup_codes';

describe.each(dialects)('imported new-api backup codes on %s', (dialect) => {
  let source: TestDatabase, target: TestDatabase, first: ImportResult, t: TestApp;
  const box = new SecretBox(CRYPTO_SECRET);
  const clock = new TotpClock();
  const importOnce = () => runImport({ from: source.dsn, target: target.db, box, log });
  const report = (r: ImportResult) => r.reports.find((x) => x.table === TABLE)!;

  beforeAll(async () => {
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, NEW_API);
    await seedNewApi(source.db.kysely, dialect, 'http://127.0.0.1:9');
    const day = new Date(Date.now() - 86_400_000);
    await inserter(source.db.kysely, dialect).insert('two_fa_backup_codes', [
      { id: 2, user_id: 3, code_hash: goBcrypt(BOB_SECOND), is_used: false, created_at: day },
      { id: 3, user_id: 3, code_hash: goBcrypt(BOB_USED), is_used: true, used_at: day, created_at: day },
      { id: 4, user_id: 3, code_hash: goBcrypt(BOB_REPLACED), is_used: false, created_at: day, deleted_at: day },
      { id: 5, user_id: 2, code_hash: goBcrypt(ALICE_CODE), is_used: false, created_at: day },
    ]);
    target = await createTestDatabase(dialect);
    await migrateToLatest(target.db);
    first = await importOnce();
    t = await startTestApp(dialect, { CRYPTO_SECRET }, target);
    clock.start();
  });
  afterAll(async () => {
    clock.stop();
    await t?.close();
    await target?.drop();
    await source?.drop();
  });

  /** Password, then `code` as the second step, from a fresh browser. */
  const signIn = async (username: string, password: string, code: string) => {
    const c = new Client(t.app);
    const challenge = await c.call<Challenge>('POST', '/api/user/login', { username, password });
    expect(challenge.body.data).toMatchObject({ require_2fa: true });
    return { c, res: await secondStep(c, challenge.body.data!.flow_token, code) };
  };
  const refused = (res: { body: { success: boolean; message: string } }) => {
    expect(res.body).toMatchObject({ success: false, code: ErrorCode.TwoFactorCodeWrong });
  };
  const remaining = async (c: Client) =>
    (await c.call<{ backup_codes_remaining: number }>('GET', '/api/user/2fa/status')).body.data!.backup_codes_remaining;

  it("carries the unused codes of users whose authenticator was carried, as new-api's bcrypt hashes", async () => {
    expect(report(first)).toMatchObject({ read: 5, written: 2 });
    const lines = report(first).lines().join('\n');
    expect(lines).toContain('used in the source (id 3)');
    expect(lines).toContain('replaced by newer codes in the source (id 4)');
    expect(lines).toMatch(/two-factor secret was not carried.*\(id 5\)/);
    const rows = await target.db.kysely.selectFrom(TABLE).selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.user_id, r.used_at, r.code_hash.slice(0, 7)])).toEqual([
      [3, 0, '$2a$10$'],
      [3, 0, '$2a$10$'],
    ]);
  });

  it('an imported code completes the sign-in once (any case, with or without the dash); the second time it is refused', async () => {
    const { c, res } = await signIn('bob', 'bob-pass-9999', 'abcdefgh');
    expect(res.body).toMatchObject({ success: true, data: { username: 'bob' } });
    expect(await remaining(c)).toBe(1);
    refused((await signIn('bob', 'bob-pass-9999', BOB_CODE)).res);
    // Codes new-api had spent or replaced, and a code of another scheme's length, do not work.
    refused((await signIn('bob', 'bob-pass-9999', BOB_USED)).res);
    refused((await signIn('bob', 'bob-pass-9999', BOB_REPLACED)).res);
    refused((await signIn('bob', 'bob-pass-9999', 'ABCDE-FGHJK')).res);
  });

  it('an imported code also passes the secure verification, once', async () => {
    clock.nextWindow();
    const { c } = await signIn('bob', 'bob-pass-9999', clock.code(BOB_TOTP_SECRET));
    expect((await c.call('POST', '/api/verify', { method: '2fa', code: BOB_SECOND })).body.success).toBe(true);
    refused(await c.call('POST', '/api/verify', { method: '2fa', code: BOB_SECOND }));
    expect(await remaining(c)).toBe(0);
  });

  it("a re-run adds no code twice and revives no spent one; Tollway's own codes replace the imported ones and keep their scheme", async () => {
    clock.nextWindow();
    const again = await importOnce();
    expect(report(again)).toMatchObject({ read: 5, written: 0, present: 2 });
    refused((await signIn('bob', 'bob-pass-9999', BOB_CODE)).res);

    const { c: bob } = await signIn('bob', 'bob-pass-9999', clock.code(BOB_TOTP_SECRET));
    const made = await bob.call<{ backup_codes: string[] }>('POST', '/api/user/2fa/backup_codes', {
      code: clock.code(BOB_TOTP_SECRET),
    });
    const own = made.body.data!.backup_codes;
    const stored = await target.db.kysely.selectFrom(TABLE).select('code_hash').where('user_id', '=', 3).execute();
    expect(stored.map((s) => s.code_hash.split('$')[0])).toEqual(own.map(() => 'scrypt'));
    expect((await signIn('bob', 'bob-pass-9999', own[0]!)).res.body.success).toBe(true);
    refused((await signIn('bob', 'bob-pass-9999', own[0]!)).res);

    // A Tollway user's own setup beside the imported ones: its codes work once as before.
    const root = new Client(t.app);
    expect((await root.login('root', '123456')).body.success).toBe(true);
    const enabled = await enableTwoFactor(root, clock);
    expect((await signIn('root', '123456', enabled.backupCodes[0]!)).res.body.success).toBe(true);
    refused((await signIn('root', '123456', enabled.backupCodes[0]!)).res);
  });

  it('leaves out the codes of a user whose Tollway authenticator is not the source one', async () => {
    const k = target.db.kysely;
    await k.deleteFrom(TABLE).where('user_id', '=', 3).execute();
    await k
      .updateTable('two_factor')
      .set({ secret: box.seal('KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU') })
      .where('user_id', '=', 3)
      .execute();
    const again = await importOnce();
    expect(report(again)).toMatchObject({ read: 5, written: 0 });
    expect(report(again).lines().join('\n')).toContain("skipped 3: its user's two-factor secret was not carried");
    expect(await k.selectFrom(TABLE).select('id').where('user_id', '=', 3).execute()).toEqual([]);
  });
});
