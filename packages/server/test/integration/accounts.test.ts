import { describe, expect, it } from 'vitest';
import { Client, createUserClient, ROOT, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('accounts on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));

  const setOption = async (key: string, value: string) => {
    const res = await root.call('PUT', '/api/option/', { key, value });
    expect(res.body).toMatchObject({ success: true });
  };

  it('registers with new-user quota and invite rewards, and logs in without ever returning the password', async () => {
    await setOption('QuotaForNewUser', '1000');
    await setOption('AffEnabled', 'true');
    await setOption('QuotaForInviter', '300');
    await setOption('QuotaForInvitee', '200');
    const inviter = new Client(t.app);
    expect(
      (await inviter.call('POST', '/api/user/register', { username: 'inviter', password: 'inviter-pass' })).body
        .success,
    ).toBe(true);
    await inviter.login('inviter', 'inviter-pass');
    const code = (await inviter.call<string>('GET', '/api/user/aff')).body.data!;
    expect(code).toMatch(/^[A-Za-z0-9]{6}$/);

    const invitee = new Client(t.app);
    const reg = await invitee.call('POST', '/api/user/register', {
      username: 'invitee',
      password: 'invitee-pass',
      password2: 'invitee-pass',
      aff_code: code,
    });
    expect(reg.body).toEqual({ success: true, message: 'register success' });
    const login = await invitee.login('invitee', 'invitee-pass');
    expect(login.body.data).toMatchObject({ username: 'invitee', quota: 1200, password: '' });
    expect(JSON.stringify(login.body)).not.toContain('invitee-pass');
    expect(login.raw.headers['set-cookie']).toMatch(/HttpOnly; SameSite=Lax/);

    const me = await inviter.call<{ aff_count: number; aff_quota: number; aff_history_quota: number; quota: number }>(
      'GET',
      '/api/user/self',
    );
    expect(me.body.data).toMatchObject({ aff_count: 1, aff_quota: 300, aff_history_quota: 300, quota: 1000 });
  });

  it('enforces registration switches and password rules', async () => {
    const c = new Client(t.app);
    const short = await c.call('POST', '/api/user/register', { username: 'shorty', password: 'short' });
    expectRefused(short);
    expect(short.body.message).toContain('password');
    const dup = await c.call('POST', '/api/user/register', { username: 'inviter', password: 'another-pass' });
    expect(dup.body).toMatchObject({ success: false, message: 'username already exists' });
    const mismatch = await c.call('POST', '/api/user/register', {
      username: 'mm',
      password: 'abcdefgh',
      password2: 'abcdefgX',
    });
    expect(mismatch.body.message).toBe('the two passwords differ');
    await setOption('RegisterEnabled', 'false');
    const off = await c.call('POST', '/api/user/register', { username: 'nobody', password: 'nobody-pass' });
    expect(off.body).toMatchObject({ success: false, message: 'the administrator has disabled new user registration' });
    await setOption('RegisterEnabled', 'true');
    await setOption('PasswordRegisterEnabled', 'false');
    expect(
      (await c.call('POST', '/api/user/register', { username: 'nobody', password: 'nobody-pass' })).body.success,
    ).toBe(false);
    await setOption('PasswordRegisterEnabled', 'true');
  });

  it('refuses wrong passwords, honours PasswordLoginEnabled, and requires a matching New-Api-User', async () => {
    const c = new Client(t.app);
    expect((await c.login('inviter', 'wrong-password')).body.success).toBe(false);
    await setOption('PasswordLoginEnabled', 'false');
    expect((await c.login('inviter', 'inviter-pass')).body.message).toBe(
      'the administrator has disabled password login',
    );
    await setOption('PasswordLoginEnabled', 'true');
    const ok = await c.login('inviter', 'inviter-pass');
    expect(ok.body.success).toBe(true);
    expect((await c.call('GET', '/api/user/self')).status).toBe(200);
    expect((await c.call('GET', '/api/user/self', undefined, { 'new-api-user': '' })).status).toBe(401);
    expect((await c.call('GET', '/api/user/self', undefined, { 'new-api-user': String(c.userId! + 1) })).status).toBe(
      401,
    );
    const anon = new Client(t.app);
    expect((await anon.call('GET', '/api/user/self')).status).toBe(401);
    // A forged cookie is not a session.
    anon.cookie = 'session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    anon.userId = c.userId;
    expect((await anon.call('GET', '/api/user/self')).status).toBe(401);
    // Logout clears the cookie.
    const out = await c.call('GET', '/api/user/logout');
    expect(out.raw.headers['set-cookie']).toMatch(/^session=; .*Max-Age=0/);
    expect((await c.call('GET', '/api/user/self')).status).toBe(401);
  });

  it('generates an access token that works instead of the cookie, and replaces the old one', async () => {
    const c = new Client(t.app);
    await c.login('inviter', 'inviter-pass');
    const first = (await c.call<string>('GET', '/api/user/token')).body.data!;
    const second = (await c.call<string>('GET', '/api/user/token')).body.data!;
    expect(second).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(second).not.toBe(first);
    const viaToken = new Client(t.app);
    viaToken.userId = c.userId;
    viaToken.accessToken = second;
    expect((await viaToken.call<{ username: string }>('GET', '/api/user/self')).body.data!.username).toBe('inviter');
    viaToken.accessToken = `Bearer ${second}`;
    expect((await viaToken.call('GET', '/api/user/self')).status).toBe(200);
    viaToken.accessToken = first;
    expect((await viaToken.call('GET', '/api/user/self')).status).toBe(401);
  });

  it('changes the password only with the original one and updates the display name', async () => {
    const c = await createUserClient(t.app, root, 'changer');
    const wrong = await c.call('PUT', '/api/user/self', { password: 'new-password-1', original_password: 'nope-nope' });
    expect(wrong.body).toMatchObject({ success: false, message: 'the original password is wrong' });
    const ok = await c.call('PUT', '/api/user/self', {
      password: 'new-password-1',
      original_password: 'user-pass-123',
      display_name: 'Changer',
    });
    expect(ok.body.success).toBe(true);
    expect((await new Client(t.app).login('changer', 'user-pass-123')).body.success).toBe(false);
    const relog = await new Client(t.app).login('changer', 'new-password-1');
    expect(relog.body.data).toMatchObject({ display_name: 'Changer' });
  });

  it('transfers invite quota atomically: parallel transfers never overdraw', async () => {
    const c = new Client(t.app);
    await c.login('inviter', 'inviter-pass');
    const id = c.userId!;
    await t.database.db.kysely
      .updateTable('users')
      .set({ aff_quota: 1_000_000, quota: 0 })
      .where('id', '=', id)
      .execute();
    const below = await c.call('POST', '/api/user/aff_transfer', { quota: 499_999 });
    expect(below.body).toMatchObject({ success: false, message: 'the minimum transfer amount is 500000' });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => c.call('POST', '/api/user/aff_transfer', { quota: 500_000 })),
    );
    expect(results.filter((r) => r.body.success)).toHaveLength(2);
    const row = await t.database.db.kysely
      .selectFrom('users')
      .select(['aff_quota', 'quota'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect({ aff: Number(row.aff_quota), quota: Number(row.quota) }).toEqual({ aff: 0, quota: 1_000_000 });
  });

  it('stores notification settings, merging partial updates, and requires an https webhook', async () => {
    const c = new Client(t.app);
    await c.login('inviter', 'inviter-pass');
    const http = await c.call('PUT', '/api/user/setting', {
      notify_type: 'webhook',
      webhook_url: 'http://example.com/hook',
    });
    expectRefused(http);
    expect(http.body.message).toContain('webhook_url');
    const ok = await c.call('PUT', '/api/user/setting', {
      notify_type: 'webhook',
      webhook_url: 'https://example.com/hook',
      quota_warning_threshold: 100000,
    });
    expect(ok.body.success).toBe(true);
    await c.call('PUT', '/api/user/setting', { show_ip_in_logs: true });
    const me = await c.call<{ setting: string }>('GET', '/api/user/self');
    expect(JSON.parse(me.body.data!.setting)).toMatchObject({
      notify_type: 'webhook',
      webhook_url: 'https://example.com/hook',
      quota_warning_threshold: 100000,
      show_ip_in_logs: true,
    });
  });

  it('lists groups for the caller and for admins', async () => {
    const c = new Client(t.app);
    await c.login('inviter', 'inviter-pass');
    const mine = await c.call<Record<string, { desc: string; ratio: number }>>('GET', '/api/user/self/groups');
    expect(mine.body.data!.default).toEqual({ desc: 'default', ratio: 1 });
    const all = await root.call<string[]>('GET', '/api/group/');
    expect(all.body.data).toEqual(['default', 'vip', 'svip']);
  });

  it('soft-deletes an own account: login refused, history kept, root cannot delete itself', async () => {
    const c = await createUserClient(t.app, root, 'leaver');
    const id = c.userId!;
    expect((await c.call('DELETE', '/api/user/self')).body.success).toBe(true);
    expect((await new Client(t.app).login('leaver', 'user-pass-123')).body.success).toBe(false);
    const row = await t.database.db.kysely
      .selectFrom('users')
      .select(['deleted_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    const rootDelete = await root.call('DELETE', '/api/user/self');
    expect(rootDelete.body).toMatchObject({ success: false, message: 'the super administrator cannot be deleted' });
    expect((await new Client(t.app).login(ROOT.username, ROOT.password)).body.success).toBe(true);
  });
});
