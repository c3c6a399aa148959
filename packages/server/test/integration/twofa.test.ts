import { TWO_FACTOR_SETUP_REQUIRED } from '@tollway/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { enableTwoFactor, secondStep, setCookieHeaders, TotpClock, type Challenge } from '../support/twofa.js';
import { expectRefused } from '../support/refusal.js';

const PASSWORD = 'user-pass-123';
const CRYPTO_SECRET = 'twofa-test-crypto-secret-0123456789abcdef';

describe.each(dialects)('two-factor sign-in on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, admin2: Client, alice: Client, bob: Client;
  useApp(
    dialect,
    { env: { CRYPTO_SECRET }, admins: ['adm1', 'adm2'], users: ['alice', 'bob'] },
    (app) =>
      ({
        t,
        root,
        admins: [admin, admin2],
        users: [alice, bob],
      } = app),
  );
  const clock = new TotpClock();
  beforeAll(() => clock.start());
  afterAll(() => clock.stop());

  /** Password login as a fresh browser from `ip`: the client and the answer. */
  const passwordLogin = async (username: string, ip = '127.0.0.1', password = PASSWORD) => {
    const c = new Client(t.app);
    const res = await c.call<Challenge & { id: number }>(
      'POST',
      '/api/user/login',
      { username, password },
      { 'x-forwarded-for': ip },
    );
    if (res.body.success && res.body.data!.id) c.userId = res.body.data!.id;
    return { c, res };
  };
  const status = async (c: Client) =>
    (
      await c.call<{ enabled: boolean; locked: boolean; backup_codes_remaining: number; setup_required: boolean }>(
        'GET',
        '/api/user/2fa/status',
      )
    ).body.data!;
  const storedSecret = async (userId: number) =>
    (
      await sql<{ secret: string }>`SELECT secret FROM two_factor WHERE user_id = ${userId}`.execute(
        t.runtime.ctx.db.kysely,
      )
    ).rows[0]?.secret;

  let aliceSecret = '';
  let aliceBackup: string[] = [];

  it('setup gives a secret, its otpauth address and 10 backup codes; a wrong code does not enable; a valid one does', async () => {
    expect(await status(alice)).toEqual({
      enabled: false,
      locked: false,
      backup_codes_remaining: 0,
      setup_required: false,
    });
    const setup = await alice.call<{ secret: string; qr_code_data: string; backup_codes: string[] }>(
      'POST',
      '/api/user/2fa/setup',
    );
    expect(setup.body.success).toBe(true);
    const { secret, qr_code_data, backup_codes } = setup.body.data!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(qr_code_data).toBe(
      `otpauth://totp/Tollway:alice?secret=${secret}&issuer=Tollway&algorithm=SHA1&digits=6&period=30`,
    );
    expect(backup_codes).toHaveLength(10);

    const wrong = await alice.call('POST', '/api/user/2fa/enable', { code: '000000' });
    expect(wrong.body).toMatchObject({
      success: false,
      message: 'the verification code or backup code is wrong, please try again',
    });
    expect((await status(alice)).enabled).toBe(false);
    const plain = await passwordLogin('alice');
    expect(plain.res.body.data).toMatchObject({ username: 'alice' });

    const otherDevice = (await passwordLogin('alice')).c;
    expect((await otherDevice.call('GET', '/api/user/self')).status).toBe(200);
    const ok = await alice.call('POST', '/api/user/2fa/enable', { code: clock.code(secret) });
    expect(ok.body).toMatchObject({ success: true, message: 'two-factor authentication enabled' });
    // Sessions opened with the password alone end; the one that turned 2FA on stays.
    expect((await otherDevice.call('GET', '/api/user/self')).status).toBe(401);
    expect((await alice.call('GET', '/api/user/self')).status).toBe(200);
    expect(await status(alice)).toEqual({
      enabled: true,
      locked: false,
      backup_codes_remaining: 10,
      setup_required: false,
    });
    const again = await alice.call('POST', '/api/user/2fa/setup');
    expect(again.body.message).toBe(
      'two-factor authentication is already enabled; disable it first to set it up again',
    );
    aliceSecret = secret;
    aliceBackup = backup_codes;
  });

  it('with CRYPTO_SECRET the TOTP secret is stored encrypted, the backup codes only as salted hashes', async () => {
    const stored = await storedSecret(alice.userId!);
    expect(stored).toMatch(/^enc:v1:/);
    expect(stored).not.toContain(aliceSecret);
    const hashes = (
      await sql<{
        code_hash: string;
      }>`SELECT code_hash FROM two_factor_backup_codes WHERE user_id = ${alice.userId!}`.execute(
        t.runtime.ctx.db.kysely,
      )
    ).rows;
    expect(hashes).toHaveLength(10);
    for (const { code_hash } of hashes) {
      expect(code_hash).toMatch(/^scrypt\$/);
      for (const code of aliceBackup) expect(code_hash).not.toContain(code.replace('-', ''));
    }
  });

  it("the password alone gives no session: new-api's require_2fa answer; the code completes the sign-in once", async () => {
    const { c, res } = await passwordLogin('alice');
    expect(res.body).toMatchObject({ success: true, data: { require_2fa: true } });
    const challenge = res.body.data!;
    expect(challenge.flow_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge.expires_at).toBe(Math.floor(clock.now / 1000) + 300);
    expect(Object.keys(challenge).sort()).toEqual(['expires_at', 'flow_token', 'require_2fa']);
    const cookies = setCookieHeaders(res);
    expect(cookies.some((h) => h.startsWith('session='))).toBe(false);
    expect(cookies.find((h) => h.startsWith('twofa_pending='))).toMatch(/HttpOnly/);

    // The pending token is no session, as a cookie or as an access token.
    const pendingCookie = cookies.find((h) => h.startsWith('twofa_pending='))!.split(';')[0]!;
    const asCookie = await t.app.inject({
      method: 'GET',
      url: '/api/user/self',
      headers: { cookie: pendingCookie, 'new-api-user': String(alice.userId) },
    });
    expect(asCookie.statusCode).toBe(401);
    const asToken = await t.app.inject({
      method: 'GET',
      url: '/api/user/self',
      headers: { authorization: challenge.flow_token, 'new-api-user': String(alice.userId) },
    });
    expect(asToken.statusCode).toBe(401);

    const wrong = await secondStep(c, challenge.flow_token, '123456');
    expect(wrong.body).toMatchObject({
      success: false,
      message: 'the verification code or backup code is wrong, please try again',
    });
    expect(setCookieHeaders(wrong).some((h) => h.startsWith('session='))).toBe(false);
    // Bob's code is not Alice's second step.
    const ok = await secondStep(c, challenge.flow_token, clock.code(aliceSecret));
    expect(ok.body).toMatchObject({
      success: true,
      message: 'login success',
      data: { id: alice.userId, username: 'alice' },
    });
    expect((await c.call('GET', '/api/user/self')).body).toMatchObject({ success: true, data: { username: 'alice' } });

    const reuse = await secondStep(new Client(t.app), challenge.flow_token, clock.code(aliceSecret));
    expect(reuse.body).toMatchObject({ success: false, message: 'the sign-in has expired, please log in again' });
    const forged = await secondStep(new Client(t.app), 'A'.repeat(43), clock.code(aliceSecret));
    expect(forged.body.message).toBe('the sign-in has expired, please log in again');
  });

  it('the pending cookie alone completes the second step (new-api consoles send only the code)', async () => {
    const { res } = await passwordLogin('alice');
    const c = new Client(t.app);
    c.cookie = setCookieHeaders(res)
      .find((h) => h.startsWith('twofa_pending='))!
      .split(';')[0]!;
    const ok = await secondStep(c, undefined, clock.code(aliceSecret));
    expect(ok.body).toMatchObject({ success: true, data: { username: 'alice' } });
    expect(setCookieHeaders(ok).some((h) => /^twofa_pending=;.*Max-Age=0/.test(h))).toBe(true);
  });

  it('a code is accepted once: the same step again is refused as a replay', async () => {
    const code = clock.code(aliceSecret);
    const first = await passwordLogin('alice');
    expect((await secondStep(first.c, first.res.body.data!.flow_token, code)).body.success).toBe(true);
    const second = await passwordLogin('alice');
    const replay = await secondStep(second.c, second.res.body.data!.flow_token, code);
    expect(replay.body).toMatchObject({
      success: false,
      message: 'this verification code has already been used; wait for the next one',
    });
    // An older step (still within the drift window) is refused too once a later one was used.
    const older = await secondStep(
      second.c,
      second.res.body.data!.flow_token,
      (await import('../../src/modules/twofa/totp.js')).totpCode(aliceSecret, clock.now - 30_000),
    );
    expect(older.body.success).toBe(false);
  });

  it('a backup code signs in once, in any case and with or without the dash', async () => {
    const code = aliceBackup[0]!;
    const first = await passwordLogin('alice');
    const ok = await secondStep(first.c, first.res.body.data!.flow_token, code.toLowerCase().replace('-', ''));
    expect(ok.body).toMatchObject({ success: true, data: { username: 'alice' } });
    expect((await status(first.c)).backup_codes_remaining).toBe(9);
    const again = await passwordLogin('alice');
    const reused = await secondStep(again.c, again.res.body.data!.flow_token, code);
    expect(reused.body).toMatchObject({
      success: false,
      message: 'the verification code or backup code is wrong, please try again',
    });
  });

  it('regenerating backup codes needs a current code; the old codes stop working, the new ones work', async () => {
    clock.nextWindow();
    expect((await alice.call('POST', '/api/user/2fa/backup_codes', { code: aliceBackup[1] })).body.success).toBe(false);
    const res = await alice.call<{ backup_codes: string[] }>('POST', '/api/user/2fa/backup_codes', {
      code: clock.code(aliceSecret),
    });
    expect(res.body.success).toBe(true);
    const fresh = res.body.data!.backup_codes;
    expect(fresh).toHaveLength(10);
    expect((await status(alice)).backup_codes_remaining).toBe(10);
    const old = await passwordLogin('alice');
    expect((await secondStep(old.c, old.res.body.data!.flow_token, aliceBackup[2]!)).body.success).toBe(false);
    expect((await secondStep(old.c, old.res.body.data!.flow_token, fresh[0]!)).body.success).toBe(true);
    aliceBackup = fresh.slice(1);
  });

  it('five wrong codes lock the user for the window, even for the right code, from any address; the lock ends with the window', async () => {
    clock.nextWindow();
    const { c, res } = await passwordLogin('alice', '10.1.0.1');
    for (let i = 0; i < 5; i++) expectRefused(await secondStep(c, res.body.data!.flow_token, '99999' + i, '10.1.0.1'));
    const locked = await secondStep(c, res.body.data!.flow_token, clock.code(aliceSecret), '10.1.0.2');
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({
      success: false,
      message: 'too many wrong verification codes; try again in a few minutes',
    });
    expect((await status(alice)).locked).toBe(true);
    expect((await status(bob)).locked).toBe(false);
    expect((await alice.call('POST', '/api/user/2fa/disable', { code: clock.code(aliceSecret) })).status).toBe(429);
    clock.nextWindow();
    expect((await secondStep(c, res.body.data!.flow_token, clock.code(aliceSecret))).body.message).toBe(
      'the sign-in has expired, please log in again',
    );
    const fresh = await passwordLogin('alice', '10.1.0.1');
    expect((await secondStep(fresh.c, fresh.res.body.data!.flow_token, clock.code(aliceSecret))).body.success).toBe(
      true,
    );
  });

  it('a burst of wrong codes sent at once is cut off by the tries counted before checking', async () => {
    clock.nextWindow();
    const { res } = await passwordLogin('alice', '10.3.0.1');
    const token = res.body.data!.flow_token;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => secondStep(new Client(t.app), token, String(100000 + i), `10.3.1.${i}`)),
    );
    const checked = answers.filter((r) => r.status === 200 && !r.body.success).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(15);
    expect(answers.filter((r) => r.status === 429).length).toBe(40 - checked);
  });

  it('two setups at the same moment: one wins, the other is refused without a server error; the winner enables', async () => {
    const u = await createUserClient(t.app, root, 'racer');
    const [x, y] = await Promise.all([
      u.call<{ secret: string }>('POST', '/api/user/2fa/setup'),
      u.call<{ secret: string }>('POST', '/api/user/2fa/setup'),
    ]);
    for (const r of [x, y]) expect(r.status).toBeLessThan(500);
    const stored = await u.call<{ secret: string }>('POST', '/api/user/2fa/setup');
    expect(stored.body.success).toBe(true);
    expect(
      (await u.call('POST', '/api/user/2fa/enable', { code: clock.code(stored.body.data!.secret) })).body.success,
    ).toBe(true);
  });

  it('twenty wrong codes from one address lock that address for every account', async () => {
    clock.nextWindow();
    const victims: Client[] = [];
    for (let i = 0; i < 5; i++) {
      const u = await createUserClient(t.app, root, `ipvictim${i}`);
      expect((await u.call('POST', '/api/user/2fa/setup')).body.success).toBe(true);
      victims.push(u);
    }
    for (const u of victims)
      for (let i = 0; i < 4; i++)
        await u.call('POST', '/api/user/2fa/enable', { code: '00000' + i }, { 'x-forwarded-for': '10.2.0.1' });
    const { c, res } = await passwordLogin('alice', '10.2.0.1');
    const blocked = await secondStep(c, res.body.data!.flow_token, clock.code(aliceSecret), '10.2.0.1');
    expect(blocked.status).toBe(429);
    const elsewhere = await secondStep(c, res.body.data!.flow_token, clock.code(aliceSecret), '10.2.0.9');
    expect(elsewhere.body.success).toBe(true);
  });

  it('disable needs a valid code or backup code; afterwards the password alone signs in again', async () => {
    clock.nextWindow();
    const bobTwoFactor = await enableTwoFactor(bob, clock);
    expect((await bob.call('POST', '/api/user/2fa/disable', { code: '111111' })).body.success).toBe(false);
    expectRefused(await bob.call('POST', '/api/user/2fa/disable', {}));
    const off = await bob.call('POST', '/api/user/2fa/disable', { code: bobTwoFactor.backupCodes[3] });
    expect(off.body).toMatchObject({ success: true, message: 'two-factor authentication disabled' });
    expect((await status(bob)).enabled).toBe(false);
    expect(await storedSecret(bob.userId!)).toBeUndefined();
    expect((await passwordLogin('bob')).res.body.data).toMatchObject({ username: 'bob' });
    const again = await enableTwoFactor(bob, clock);
    expect((await bob.call('POST', '/api/user/2fa/disable', { code: clock.code(again.secret) })).body.success).toBe(
      true,
    );
  });

  it('admin reset follows the tier rules: below the caller only, never root or another admin', async () => {
    await enableTwoFactor(bob, clock);
    const a2 = await enableTwoFactor(admin2, clock);
    const rootTwoFactor = await enableTwoFactor(root, clock);
    expect((await alice.call('DELETE', `/api/user/${bob.userId}/2fa`)).status).toBe(403);
    const onAdmin = await admin.call('DELETE', `/api/user/${admin2.userId}/2fa`);
    expectRefused(onAdmin);
    expect(onAdmin.body.message).toBe(
      'cannot reset two-factor authentication of a user at the same or a higher permission level',
    );
    expectRefused(await admin.call('DELETE', `/api/user/${root.userId}/2fa`));
    expect((await status(admin2)).enabled).toBe(true);
    expect((await status(root)).enabled).toBe(true);
    expect((await bob.call('GET', '/api/user/self')).status).toBe(200);
    const onUser = await admin.call('DELETE', `/api/user/${bob.userId}/2fa`);
    expect(onUser.body).toMatchObject({
      success: true,
      message: 'two-factor authentication of the user has been reset',
    });
    // The reset ends the user's sessions: they sign in again with the password alone.
    expect((await bob.call('GET', '/api/user/self')).status).toBe(401);
    bob = (await passwordLogin('bob')).c;
    expect((await status(bob)).enabled).toBe(false);
    expect((await admin.call('DELETE', `/api/user/${bob.userId}/2fa`)).body.message).toBe(
      'two-factor authentication is not enabled for this user',
    );
    expect((await root.call('DELETE', `/api/user/${admin2.userId}/2fa`)).body.success).toBe(true);
    admin2 = (await passwordLogin('adm2')).c;
    expectRefused(await root.call('DELETE', `/api/user/${root.userId}/2fa`));
    const stats = await admin.call<{ enabled_users: number }>('GET', '/api/user/2fa/stats');
    expect(stats.body.data!.enabled_users).toBe(3);
    expect(a2.secret).not.toBe(rootTwoFactor.secret);
  });

  it('TwoFactorRequiredForAdmins: an admin without 2FA can only set it up and read their profile; users are not affected', async () => {
    const setOpt = await root.call('PUT', '/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'true' });
    expect(setOpt.body.success).toBe(true);
    expect(
      (await admin.call('PUT', '/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'false' })).status,
    ).toBe(403);

    const blocked = await admin.call('GET', '/api/user/?p=1&page_size=10');
    expect(blocked.status).toBe(403);
    expect(blocked.body).toMatchObject({ success: false, message: TWO_FACTOR_SETUP_REQUIRED });
    expect((await admin.call('POST', '/api/user/2fa/backup_codes', { code: '123456' })).body.message).toBe(
      TWO_FACTOR_SETUP_REQUIRED,
    );
    expect((await admin.call('GET', '/api/user/self')).body.success).toBe(true);
    expect((await status(admin)).setup_required).toBe(true);
    expect((await status(alice)).setup_required).toBe(false);
    expect((await alice.call('GET', '/api/token/?p=1&page_size=10')).status).toBe(200);
    expect((await bob.call('GET', '/api/token/?p=1&page_size=10')).status).toBe(200);
    // Root (with 2FA from the test above) is not held back.
    expect((await root.call('GET', '/api/user/?p=1&page_size=10')).status).toBe(200);

    await enableTwoFactor(admin, clock);
    expect((await admin.call('GET', '/api/user/?p=1&page_size=10')).status).toBe(200);
    expect((await status(admin)).setup_required).toBe(false);
    // An admin whose 2FA was reset is held back again at once.
    expect((await root.call('DELETE', `/api/user/${admin.userId}/2fa`)).body.success).toBe(true);
    admin = (await passwordLogin('adm1')).c;
    expect((await admin.call('GET', '/api/user/?p=1&page_size=10')).status).toBe(403);
    expect(
      (await root.call('PUT', '/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'false' })).body.success,
    ).toBe(true);
    expect((await admin.call('GET', '/api/user/?p=1&page_size=10')).status).toBe(200);
  });
});
