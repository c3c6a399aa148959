import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserPublic } from '@tollway/shared';
import { ldapRevalidationOf } from '../../src/modules/ldap/revalidate.js';
import { nowSeconds } from '../../src/lib/time.js';
import { Client, createUserClient, type CallResult } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { freePort } from '../support/process.js';
import { useApp } from '../support/fixture.js';
import { startMockSiteverify, type MockSiteverify } from '../support/mock-siteverify.js';
import { LDAP_PEOPLE, LDAP_SERVICE_DN, LDAP_SERVICE_PASSWORD, startSlapd, type Slapd } from '../support/slapd.js';
import { enableTwoFactor, secondStep, TotpClock } from '../support/twofa.js';

const TURNSTILE_SECRET = '0x4AAAAAAA-ldap-test-secret';

type Answer = { success: boolean; message: string; code?: string; data?: Record<string, unknown> };

const LOGIN_FAILED = {
  success: false,
  code: 'ldap_login_failed',
  message: 'the directory username or password is wrong',
};

describe.each(dialects)('LDAP sign-in against slapd on %s', (dialect) => {
  let slapd: Slapd;
  let verifier: MockSiteverify;
  // The bot check's verifier starts first: the app reads TURNSTILE_VERIFY_URL from `env` when it starts.
  const env: Record<string, string> = {};
  beforeAll(async () => {
    verifier = await startMockSiteverify(TURNSTILE_SECRET);
    env.TURNSTILE_VERIFY_URL = verifier.verifyUrl;
  });
  afterAll(async () => verifier?.close());
  const fx = useApp(dialect, { env });

  const setOption = async (key: string, value: string) => {
    const res = await fx.root.call('PUT', '/api/option/', { key, value });
    expect(res.body, `${key}=${value}`).toMatchObject({ success: true });
  };
  const setOptions = async (opts: Record<string, string>) => {
    for (const [k, v] of Object.entries(opts)) await setOption(k, v);
  };
  const ldapLogin = async (c: Client, username: string, password: string): Promise<CallResult & { body: Answer }> => {
    const res = await c.call('POST', '/api/user/login/ldap', { username, password });
    const body = res.body as Answer;
    if (body.success && body.data && typeof body.data.id === 'number') c.userId = body.data.id;
    return res as CallResult & { body: Answer };
  };
  const self = async (c: Client) => c.call<UserPublic>('GET', '/api/user/self');
  const revalidateLater = (seconds: number) => ldapRevalidationOf(fx.t.runtime.ctx).runOnce(nowSeconds() + seconds);

  beforeAll(async () => {
    slapd = await startSlapd();
    await slapd.addPerson({ uid: 'alice', password: 'alice-pw', cn: 'Alice Liddell', mail: 'alice@example.org' });
    await slapd.addPerson({ uid: 'bob', password: 'bob-pw' });
    await slapd.addPerson({ uid: 'carol', password: 'carol-pw' });
    await slapd.addPerson({ uid: 'dave', password: 'dave-pw' });
    await slapd.addPerson({ uid: 'erin', password: 'erin-pw' });
    await slapd.addGroup('staff', ['alice', 'bob', 'carol', 'erin']);
    await slapd.addGroup('ops', []);
    await slapd.addGroup('admins', []);
  });
  afterAll(async () => slapd?.stop());

  const baseOptions = () => ({
    LDAPServerURL: slapd.url,
    LDAPBindDN: LDAP_SERVICE_DN,
    LDAPBindPassword: LDAP_SERVICE_PASSWORD,
    LDAPBaseDN: LDAP_PEOPLE,
    LDAPUserFilter: '(&(objectClass=inetOrgPerson)(uid={username}))',
    LDAPGroupMapping: JSON.stringify({ staff: 'vip', [slapd.groupDn('ops')]: 'svip' }),
    LDAPRoleMapping: JSON.stringify({ admins: 'admin' }),
    LDAPDisabledFilter: '(employeeType=disabled)',
  });

  it('is refused while LDAPEnabled is off, and /api/status says so', async () => {
    await setOptions(baseOptions());
    expect((await fx.root.call<{ ldap_login: boolean }>('GET', '/api/status')).body.data?.ldap_login).toBe(false);
    const res = await ldapLogin(new Client(fx.t.app), 'alice', 'alice-pw');
    expect(res.body).toMatchObject({ success: false, code: 'ldap_disabled' });
    await setOption('LDAPEnabled', 'true');
    expect((await fx.root.call<{ ldap_login: boolean }>('GET', '/api/status')).body.data?.ldap_login).toBe(true);
  });

  it('never returns the bind password and refuses a malformed URL or filter', async () => {
    const opts = await fx.root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    const bind = opts.body.data!.find((o) => o.key === 'LDAPBindPassword');
    expect(bind?.value ?? '').not.toContain(LDAP_SERVICE_PASSWORD);
    const url = await fx.root.call('PUT', '/api/option/', { key: 'LDAPServerURL', value: 'http://dc1' });
    expect(url.body).toMatchObject({ success: false });
    const filter = await fx.root.call('PUT', '/api/option/', { key: 'LDAPUserFilter', value: '(uid=alice)' });
    expect(filter.body).toMatchObject({ success: false });
    // A directory group never makes root.
    const role = await fx.root.call('PUT', '/api/option/', { key: 'LDAPRoleMapping', value: '{"admins":"root"}' });
    expect(role.body).toMatchObject({ success: false, code: 'input_not_in_list' });
  });

  it('creates the user on the first sign-in with the mapped group, and updates it when the groups change', async () => {
    const c = new Client(fx.t.app);
    const first = await ldapLogin(c, 'alice', 'alice-pw');
    expect(first.body).toMatchObject({ success: true, data: { username: 'alice', group: 'vip' } });
    const me = (await self(c)).body.data!;
    expect(me).toMatchObject({ username: 'alice', display_name: 'Alice Liddell', email: 'alice@example.org' });
    expect(me.group).toBe('vip');

    // Moved from staff to ops (mapped by its full DN, case aside) and made an admin by the directory.
    await slapd.setGroupMembers('staff', ['bob', 'carol', 'erin']);
    await slapd.setGroupMembers('ops', ['alice']);
    await slapd.setGroupMembers('admins', ['alice']);
    const again = await ldapLogin(new Client(fx.t.app), 'ALICE', 'alice-pw');
    expect(again.body).toMatchObject({ success: true, data: { id: me.id, group: 'svip', role: 10 } });
    await slapd.setGroupMembers('admins', []);
    const third = await ldapLogin(new Client(fx.t.app), 'alice', 'alice-pw');
    expect(third.body).toMatchObject({ success: true, data: { id: me.id, role: 1 } });
  });

  it('answers a wrong password, an unknown user and an empty password alike', async () => {
    const c = new Client(fx.t.app);
    expect((await ldapLogin(c, 'alice', 'nope')).body).toMatchObject(LOGIN_FAILED);
    expect((await ldapLogin(c, 'mallory', 'alice-pw')).body).toMatchObject(LOGIN_FAILED);
    expect((await ldapLogin(c, 'alice', '')).body).toMatchObject(LOGIN_FAILED);
    expect((await ldapLogin(c, '', '')).body).toMatchObject(LOGIN_FAILED);
    expect(c.cookie).toBe('');
  });

  it('escapes the user name in the filter: an injection matches nobody', async () => {
    const c = new Client(fx.t.app);
    for (const name of ['*', '*)(uid=*', 'alice)(|(uid=*', 'al*', '*)(objectClass=*'])
      expect((await ldapLogin(c, name, 'alice-pw')).body, name).toMatchObject(LOGIN_FAILED);
    expect(c.cookie).toBe('');
  });

  it('refuses a directory account that is disabled, or in no mapped group when one is required', async () => {
    await slapd.setEmployeeType('dave', 'disabled');
    expect((await ldapLogin(new Client(fx.t.app), 'dave', 'dave-pw')).body).toMatchObject({
      success: false,
      code: 'ldap_account_disabled',
    });
    await slapd.setEmployeeType('dave', 'staff');
    await setOption('LDAPGroupRequired', 'true');
    try {
      expect((await ldapLogin(new Client(fx.t.app), 'dave', 'dave-pw')).body).toMatchObject({
        success: false,
        code: 'ldap_not_allowed',
      });
    } finally {
      await setOption('LDAPGroupRequired', 'false');
    }
  });

  it('refuses a user disabled locally, and registers nobody with LDAPAutoRegister off', async () => {
    const c = new Client(fx.t.app);
    expect((await ldapLogin(c, 'erin', 'erin-pw')).body.success).toBe(true);
    const id = c.userId!;
    await fx.root.call('POST', '/api/user/manage', { id, action: 'disable' });
    expect((await ldapLogin(new Client(fx.t.app), 'erin', 'erin-pw')).body).toMatchObject({
      success: false,
      code: 'user_banned',
    });
    await setOption('LDAPAutoRegister', 'false');
    try {
      expect((await ldapLogin(new Client(fx.t.app), 'dave', 'dave-pw')).body).toMatchObject({
        success: false,
        code: 'ldap_register_disabled',
      });
    } finally {
      await setOption('LDAPAutoRegister', 'true');
    }
  });

  it('verifies the server certificate: ldaps and StartTLS with the CA work, without it they fail cleanly', async () => {
    try {
      await setOptions({ LDAPServerURL: slapd.ldapsUrl, LDAPTLSCACert: '' });
      const bare = await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw');
      expect(bare.body).toMatchObject({ success: false, code: 'ldap_tls_failed' });
      expect(bare.body.message).not.toMatch(/127\.0\.0\.1|ldaps:|Error|at /);
      await setOption('LDAPTLSCACert', slapd.caCert);
      expect((await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw')).body).toMatchObject({
        success: true,
        data: { username: 'bob', group: 'vip' },
      });
      await setOptions({ LDAPServerURL: slapd.url, LDAPStartTLS: 'true' });
      expect((await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw')).body.success).toBe(true);
      await setOption('LDAPTLSCACert', '');
      expect((await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw')).body).toMatchObject({
        code: 'ldap_tls_failed',
      });
    } finally {
      await setOptions({ LDAPServerURL: slapd.url, LDAPStartTLS: 'false', LDAPTLSCACert: '' });
    }
  });

  it('says the directory is unreachable without naming its address', async () => {
    const closed = `ldap://127.0.0.1:${await freePort()}`;
    await setOption('LDAPServerURL', closed);
    try {
      const res = await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw');
      expect(res.body).toMatchObject({ success: false, code: 'ldap_unreachable' });
      expect(res.body.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:\d{2,5}/);
    } finally {
      await setOption('LDAPServerURL', slapd.url);
    }
  });

  it('gives up on a server that accepts the connection and never answers, after LDAPTimeoutSeconds', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    await setOptions({ LDAPServerURL: `ldap://127.0.0.1:${port}`, LDAPTimeoutSeconds: '1' });
    try {
      const started = Date.now();
      const res = await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw');
      expect(res.body).toMatchObject({ success: false, code: 'ldap_unreachable' });
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      await setOptions({ LDAPServerURL: slapd.url, LDAPTimeoutSeconds: '10' });
      silent.close();
    }
  });

  it('ends the directory sessions of a user removed or disabled in the directory at the next revalidation', async () => {
    const bob = new Client(fx.t.app);
    const carol = new Client(fx.t.app);
    expect((await ldapLogin(bob, 'bob', 'bob-pw')).body.success).toBe(true);
    expect((await ldapLogin(carol, 'carol', 'carol-pw')).body.success).toBe(true);
    await slapd.removePerson('bob');
    await slapd.setEmployeeType('carol', 'disabled');
    // Not due yet: a fresh sign-in counts as checked.
    expect((await revalidateLater(10)).ended).toEqual([]);
    expect((await self(bob)).status).toBe(200);
    const pass = await revalidateLater(601);
    expect(pass.ended.sort()).toEqual([bob.userId, carol.userId].sort());
    expect((await self(bob)).status).toBe(401);
    expect((await self(carol)).status).toBe(401);
    expect((await ldapLogin(new Client(fx.t.app), 'bob', 'bob-pw')).body).toMatchObject(LOGIN_FAILED);
    expect((await ldapLogin(new Client(fx.t.app), 'carol', 'carol-pw')).body).toMatchObject({
      code: 'ldap_account_disabled',
    });
    // Alice is still in the directory: her session stays, and stays after LDAP is unreachable for a pass.
    const alice = new Client(fx.t.app);
    expect((await ldapLogin(alice, 'alice', 'alice-pw')).body.success).toBe(true);
    await setOption('LDAPServerURL', `ldap://127.0.0.1:${await freePort()}`);
    try {
      expect((await revalidateLater(2000)).unreachable).toBeGreaterThan(0);
      expect((await self(alice)).status).toBe(200);
    } finally {
      await setOption('LDAPServerURL', slapd.url);
    }
    const back = await revalidateLater(2000);
    expect(back.checked).toBeGreaterThan(0);
    expect(back.ended).toEqual([]);
    expect((await self(alice)).status).toBe(200);
    // Directory sign-in turned off: every directory session ends at once (identity_provider_disabled); a password
    // session of the same user stays.
    const alicePassword = new Client(fx.t.app);
    const reset = await fx.root.call('PUT', '/api/user/', { id: alice.userId, password: 'alice-local-1' });
    expect(reset.body.success, reset.body.message).toBe(true);
    expect((await alicePassword.login('alice', 'alice-local-1')).body.success).toBe(true);
    const aliceLdap = new Client(fx.t.app);
    expect((await ldapLogin(aliceLdap, 'alice', 'alice-pw')).body.success).toBe(true);
    expect((await self(aliceLdap)).status).toBe(200);
    await setOption('LDAPEnabled', 'false');
    try {
      // The save awaits the switch's listener: when the PUT has answered, the directory sessions have ended.
      expect((await self(aliceLdap)).status).toBe(401);
      expect((await self(alicePassword)).status).toBe(200);
    } finally {
      await setOption('LDAPEnabled', 'true');
    }
  });

  it('with LDAPDisableRemovedUsers, disables users the directory dropped, with or without a directory session', async () => {
    await slapd.addPerson({ uid: 'kim', password: 'kim-pw' });
    await slapd.addPerson({ uid: 'leo', password: 'leo-pw' });
    const kim = new Client(fx.t.app);
    expect((await ldapLogin(kim, 'kim', 'kim-pw')).body.success).toBe(true);
    // Leo has a password account and bound his directory account: no directory session to check.
    const leo = await createUserClient(fx.t.app, fx.root, 'leo');
    const bind = await leo.call('POST', '/api/user/ldap/binding', { username: 'leo', password: 'leo-pw' });
    expect(bind.body.success, bind.body.message).toBe(true);
    await setOption('LDAPDisableRemovedUsers', 'true');
    try {
      // Bob (removed) and Carol (disabled) lost their directory sessions earlier but are still enabled here, with
      // nothing left to check but their binding: the sweep disables them. Kim and Leo are in good standing.
      const dropped = await fx.t.database.db.kysely
        .selectFrom('users')
        .select('id')
        .where('username', 'in', ['bob', 'carol'])
        .execute();
      const first = await revalidateLater(5000);
      expect(first.disabled.sort()).toEqual(dropped.map((r) => Number(r.id)).sort());
      expect(first.ended).toEqual([]);
      await slapd.setEmployeeType('kim', 'disabled');
      await slapd.removePerson('leo');
      const pass = await revalidateLater(10000);
      expect(pass.disabled.sort()).toEqual([kim.userId, leo.userId].sort());
      expect(pass.ended).toEqual([kim.userId]);
      for (const c of [kim, leo]) {
        expect((await self(c)).status).toBe(401);
        const row = await fx.root.call<{ status: number }>('GET', `/api/user/${c.userId}`);
        expect(row.body.data?.status).toBe(2);
      }
      expect((await leo.login('leo', 'user-pass-123')).body).toMatchObject({ success: false });
    } finally {
      await setOption('LDAPDisableRemovedUsers', 'false');
    }
  });

  it('asks for the bot check first when Turnstile is on, as the password login does', async () => {
    await setOptions({
      TurnstileSiteKey: 'site-key',
      TurnstileSecretKey: TURNSTILE_SECRET,
      TurnstileCheckEnabled: 'true',
    });
    try {
      const bare = await ldapLogin(new Client(fx.t.app), 'alice', 'alice-pw');
      expect(bare.body).toMatchObject({ success: false, code: 'bot_check_required' });
      const c = new Client(fx.t.app);
      const res = await c.call('POST', `/api/user/login/ldap?turnstile=${verifier.issue()}`, {
        username: 'alice',
        password: 'alice-pw',
      });
      expect(res.body, res.body.message).toMatchObject({ success: true, data: { username: 'alice' } });
    } finally {
      await setOption('TurnstileCheckEnabled', 'false');
    }
  });

  it('lets an existing user bind their directory account, and release it (ending its sessions)', async () => {
    await slapd.addPerson({ uid: 'henry', password: 'henry-pw' });
    const henry = await createUserClient(fx.t.app, fx.root, 'henry');
    const other = await createUserClient(fx.t.app, fx.root, 'ivy');
    // A directory name equal to a local user's is never taken over: it is bound by its owner, with its password.
    expect((await henry.call('GET', '/api/user/ldap/binding')).body.data).toEqual({ bound: false, username: '' });
    const wrong = await henry.call('POST', '/api/user/ldap/binding', { username: 'henry', password: 'nope' });
    expect(wrong.body).toMatchObject(LOGIN_FAILED);
    const bound = await henry.call('POST', '/api/user/ldap/binding', { username: 'Henry', password: 'henry-pw' });
    expect(bound.body).toMatchObject({ success: true, data: { username: 'henry' } });
    expect((await henry.call('GET', '/api/user/ldap/binding')).body.data).toEqual({ bound: true, username: 'henry' });
    const stolen = await other.call('POST', '/api/user/ldap/binding', { username: 'henry', password: 'henry-pw' });
    expect(stolen.body).toMatchObject({ success: false, code: 'oauth_account_taken' });

    const viaLdap = new Client(fx.t.app);
    expect((await ldapLogin(viaLdap, 'henry', 'henry-pw')).body).toMatchObject({
      success: true,
      data: { id: henry.userId, username: 'henry', group: 'default' },
    });
    // No email address and no other account: releasing the directory account would leave only a password.
    const alone = await viaLdap.call('DELETE', '/api/user/ldap/binding');
    expect(alone.body).toMatchObject({ success: false, code: 'oauth_only_sign_in' });
    await fx.root.call('PUT', '/api/user/', { id: henry.userId, email: 'henry@example.org' });
    expect((await henry.call('DELETE', '/api/user/ldap/binding')).body.success).toBe(true);
    expect((await self(viaLdap)).status).toBe(401);
    expect((await self(henry)).status).toBe(200);
    // Unbound, the directory sign-in makes a new user (the name henry is taken locally).
    const fresh = await ldapLogin(new Client(fx.t.app), 'henry', 'henry-pw');
    expect(fresh.body.success).toBe(true);
    expect(fresh.body.data!.id).not.toBe(henry.userId);
    expect(fresh.body.data!.username).toMatch(/^ldap_\d+$/);
  });

  it('still asks for the second factor when the user enrolled TOTP', async () => {
    await slapd.addPerson({ uid: 'frank', password: 'frank-pw' });
    const clock = new TotpClock();
    clock.start();
    try {
      const c = new Client(fx.t.app);
      expect((await ldapLogin(c, 'frank', 'frank-pw')).body.success).toBe(true);
      const { secret } = await enableTwoFactor(c, clock);
      const next = new Client(fx.t.app);
      const first = await ldapLogin(next, 'frank', 'frank-pw');
      expect(first.body).toMatchObject({ success: true, data: { require_2fa: true } });
      expect(next.cookie).toBe('');
      expect((await self(next)).status).toBe(401);
      const done = await secondStep(next, first.body.data!.flow_token as string, clock.code(secret));
      expect(done.body.success, done.body.message).toBe(true);
      expect((await self(next)).status).toBe(200);
      const origin = await fx.t.database.db.kysely
        .selectFrom('sessions')
        .select('origin')
        .where('user_id', '=', next.userId!)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      expect(origin?.origin).toBe('ldap');
    } finally {
      clock.stop();
    }
  });
});
