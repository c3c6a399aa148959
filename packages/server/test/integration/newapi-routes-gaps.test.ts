import { ErrorCode } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import texts from '../../../web/src/i18n/errors.js';
import { Client, createUserClient, type CallResult, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { addToken } from '../support/gateway.js';
import { logRow } from '../support/log-row.js';

type Coded = { success: boolean; message: string; code?: string; params?: Record<string, string | number> };

const ok = <T = unknown>(res: CallResult<unknown>): T => {
  expect(res.body.success, res.body.message).toBe(true);
  return res.body.data as T;
};
/** new-api's success:false, with a code the console has a text for in both languages. */
const refusedWith = (res: CallResult, code: ErrorCode, params?: Record<string, unknown>) => {
  const body = res.body as Coded;
  expect(body.success, body.message).toBe(false);
  expect(body.code, body.message).toBe(code);
  for (const lang of ['zh', 'en'] as const) expect(texts[lang][code], `${lang} text of ${code}`).toBeTruthy();
  if (params) expect(body.params).toMatchObject(params);
};

/** The new-api routes that had no answer here: what each one now does (the routing contract is new-api-routes.test.ts). */
describe.each(dialects)('new-api routes filled in, on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, alice: Client, bob: Client, anon: Client;
  useApp(dialect, { admins: ['gaps-admin'], users: ['gaps-alice', 'gaps-bob'] }, (app) => {
    ({ t, root } = app);
    [admin] = app.admins as [Client];
    [alice, bob] = app.users as [Client, Client];
    anon = new Client(t.app);
  });
  /** A call with an API key (sk-…, as addToken gives it) and no session. */
  const withKey = (key: string, url: string) => anon.call('GET', url, undefined, { authorization: `Bearer ${key}` });

  it("an API key reads its own usage in new-api's shape, whatever the token's state, and only with a key", async () => {
    const limited = await addToken(t, alice.userId!, {
      name: 'limited',
      remainQuota: 700,
      modelLimits: 'gpt-4o,claude-3',
      expiredTime: 4102444800,
    });
    await t.database.db.kysely.updateTable('tokens').set({ used_quota: 300 }).where('id', '=', limited.id).execute();
    const res = await withKey(limited.key, '/api/usage/token');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, code: true, message: 'ok' });
    expect(res.body.data).toEqual({
      object: 'token_usage',
      name: 'limited',
      total_granted: 1000,
      total_used: 300,
      total_available: 700,
      unlimited_quota: false,
      model_limits: { 'gpt-4o': true, 'claude-3': true },
      model_limits_enabled: true,
      expires_at: 4102444800,
      // Tollway's addition to new-api's shape: what is left of the key's and its owner's period limits (none here).
      period_limits: [],
    });
    const unlimited = await addToken(t, alice.userId!, { name: 'forever' });
    // Without the Bearer word nor sk-, and with a disabled token: still read (new-api's read-only key check).
    await t.database.db.kysely.updateTable('tokens').set({ status: 2 }).where('id', '=', unlimited.id).execute();
    const bare = unlimited.key.slice('sk-'.length);
    const plain = await anon.call('GET', '/api/usage/token/', undefined, { authorization: bare });
    expect(plain.body.data).toMatchObject({ name: 'forever', unlimited_quota: true, expires_at: 0, model_limits: {} });

    const missing = await alice.call('GET', '/api/usage/token');
    expect(missing.status).toBe(401);
    refusedWith(missing, ErrorCode.ApiKeyMissing);
    const unknown = await withKey('sk-not-a-key', '/api/usage/token');
    expect(unknown.status).toBe(401);
    refusedWith(unknown, ErrorCode.ApiKeyInvalid);
    // A deleted token's key is unknown; a banned owner's key is refused.
    await alice.call('DELETE', `/api/token/${limited.id}`);
    refusedWith(await withKey(limited.key, '/api/usage/token'), ErrorCode.ApiKeyInvalid);
    const bobs = await addToken(t, bob.userId!, {});
    ok(await root.call('POST', '/api/user/manage', { id: bob.userId, action: 'disable' }));
    const banned = await withKey(bobs.key, '/api/usage/token');
    expect(banned.status).toBe(403);
    refusedWith(banned, ErrorCode.UserBanned);
    ok(await root.call('POST', '/api/user/manage', { id: bob.userId, action: 'enable' }));
    // The API document says what the call takes.
    type Op = { description: string; parameters: { name: string; in: string }[] };
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, { get: Op }>;
    };
    const usage = doc.paths['/api/usage/token/']!.get;
    expect(usage.description).toContain('an API key');
    expect(usage.parameters).toContainEqual(expect.objectContaining({ name: 'Authorization', in: 'header' }));
  });

  it("an API key reads its own latest logs as its owner sees them, never another token's", async () => {
    const mine = await addToken(t, alice.userId!, { name: 'logged' });
    const other = await addToken(t, alice.userId!, { name: 'other' });
    const admin = JSON.stringify({ admin_info: { use_channel: [3] }, model_ratio: 2 });
    await t.database.db.kysely
      .insertInto('logs')
      .values([
        logRow({
          user_id: alice.userId!,
          token_id: mine.id,
          created_at: 10,
          model_name: 'm-old',
          channel_id: 3,
          other: admin,
        }),
        logRow({ user_id: alice.userId!, token_id: mine.id, created_at: 20, model_name: 'm-new', channel_id: 3 }),
        logRow({ user_id: alice.userId!, token_id: other.id, created_at: 30, model_name: 'm-other' }),
        // Another user's row with the same token id is not the key's.
        logRow({ user_id: bob.userId!, token_id: mine.id, created_at: 40, model_name: 'm-bob' }),
      ])
      .execute();
    const logs = ok<{ model_name: string; channel?: number; other: string }[]>(
      await withKey(mine.key, '/api/log/token'),
    );
    expect(logs.map((l) => l.model_name)).toEqual(['m-new', 'm-old']);
    expect(logs.every((l) => l.channel === undefined)).toBe(true);
    expect(JSON.parse(logs[1]!.other)).toEqual({ model_ratio: 2 });
    expect((await alice.call('GET', '/api/log/token')).status).toBe(401);
  });

  it('an administrator deletes a user below them by id; the super administrator and equals stay', async () => {
    const victim = await root.call<{ id: number }>('POST', '/api/user/', {
      username: 'gaps-victim',
      password: 'victim-pass-1',
    });
    const id = ok<{ id: number }>(victim).id;
    expect((await alice.call('DELETE', `/api/user/${id}`)).status).toBe(403);
    ok(await admin.call('DELETE', `/api/user/${id}`));
    expect((await new Client(t.app).login('gaps-victim', 'victim-pass-1')).body.success).toBe(false);
    refusedWith(await admin.call('DELETE', `/api/user/${id}`), ErrorCode.UserNotFound);
    refusedWith(await admin.call('DELETE', `/api/user/${root.userId}`), ErrorCode.RootProtected);
    refusedWith(await admin.call('DELETE', `/api/user/${admin.userId}`), ErrorCode.SelfManageRefused);
  });

  it('groups: without a session those open to every user, with one the caller’s own group too', async () => {
    ok(await root.call('PUT', '/api/option/', { key: 'GroupRatio', value: '{"default":1,"vip":1.5,"svip":2}' }));
    ok(await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: '{"default":"Default","vip":"VIP"}' }));
    const everyone = { default: { desc: 'Default', ratio: 1 }, vip: { desc: 'VIP', ratio: 1.5 } };
    expect(ok(await anon.call('GET', '/api/user/groups'))).toEqual(everyone);
    const carol = await createUserClient(t.app, root, 'gaps-carol');
    ok(await root.call('PUT', '/api/user/', { id: carol.userId, group: 'svip' }));
    const signedIn = { ...everyone, svip: { desc: 'svip', ratio: 2 } };
    expect(ok(await carol.call('GET', '/api/user/groups'))).toEqual(signedIn);
    expect(ok(await carol.call('GET', '/api/user/self/groups'))).toEqual(signedIn);
  });

  it('binding an email and a WeChat account also take a JSON body, for a signed-in caller only', async () => {
    refusedWith(
      await alice.call('POST', '/api/oauth/email/bind', { email: 'alice@example.com', code: 'WRONG1' }),
      ErrorCode.VerificationCodeWrong,
    );
    expect((await anon.call('POST', '/api/oauth/email/bind', { email: 'a@example.com', code: 'x' })).status).toBe(401);
    refusedWith(await alice.call('POST', '/api/oauth/wechat/bind', { code: 'abc' }), ErrorCode.OAuthDisabled);
    expect((await anon.call('POST', '/api/oauth/wechat/bind', { code: 'abc' })).status).toBe(401);
  });

  it('status test, console setting migration and the deprecated log searches answer as new-api does', async () => {
    const test = await admin.call<{ checks: { database: string } }>('GET', '/api/status/test');
    expect(test.body.message).toBe('Server is running');
    expect(ok<{ checks: { database: string } }>(test).checks.database).toBe('ok');
    expect((await alice.call('GET', '/api/status/test')).status).toBe(403);
    const migrated = await root.call('POST', '/api/option/migrate_console_setting', {});
    expect(migrated.body).toMatchObject({ success: true, message: 'migrated' });
    refusedWith(await admin.call('GET', '/api/log/search?keyword=x'), ErrorCode.ApiDeprecated);
    refusedWith(await alice.call('GET', '/api/log/self/search?keyword=x'), ErrorCode.ApiDeprecated);
  });

  it('io.net deployments, other payment providers and plan payment callbacks say they are absent; external sign-ins are off until root enables a provider', async () => {
    expect(ok(await root.call('GET', '/api/custom-oauth-provider/'))).toEqual([]);
    refusedWith(await root.call('POST', '/api/custom-oauth-provider/', { name: 'x' }), ErrorCode.CustomOAuthInvalid);
    refusedWith(await anon.call('POST', '/api/auth/external/acme/jwt/login', {}), ErrorCode.CustomOAuthDisabled);
    refusedWith(await anon.call('POST', '/api/auth/external/acme/header/login', {}), ErrorCode.CustomOAuthDisabled);
    expect(ok(await admin.call('GET', '/api/deployments/settings'))).toEqual({
      provider: 'io.net',
      enabled: false,
      configured: false,
      can_connect: false,
    });
    refusedWith(await admin.call('GET', '/api/deployments/'), ErrorCode.DeploymentsUnavailable);
    refusedWith(await admin.call('DELETE', '/api/deployments/7'), ErrorCode.DeploymentsUnavailable);
    refusedWith(await alice.call('POST', '/api/user/waffo/pay', { amount: 10 }), ErrorCode.PaymentMethodUnavailable, {
      method: 'Waffo',
    });
    refusedWith(await anon.call('POST', '/api/waffo/webhook', {}), ErrorCode.PaymentMethodUnavailable, {
      method: 'Waffo',
    });
    expect((await admin.call('PATCH', '/api/subscription/admin/plans/987654', { enabled: false })).body).toMatchObject({
      success: false,
      message: 'subscription plan not found',
    });
    // Plans are paid through Epay now: an unsigned notify is refused in Epay's words, not as a missing feature.
    const notify = await anon.call('GET', '/api/subscription/epay/notify');
    expect(notify.raw.statusCode).toBe(200);
    expect(notify.raw.body).toBe('fail');
  });
});
