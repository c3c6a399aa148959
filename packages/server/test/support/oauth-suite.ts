import type { UserPublic } from '@tollway/shared';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/connect.js';
import { Client } from './app.js';
import { useApp, type AppFixture, type AppOptions } from './fixture.js';
import { startMockOAuth, type MockOAuth } from './mock-oauth.js';
import { oauthCallback, oauthState, setCookies } from './oauth-flow.js';
import { expectRefused } from './refusal.js';

/** An app whose fixed provider hosts point at a mock provider, with users alice and bob; filled in beforeAll. */
export interface OAuthApp extends AppFixture {
  mock: MockOAuth;
  setOption(key: string, value: string): Promise<void>;
  self(c: Client): Promise<UserPublic>;
}

/** Starts the mock provider, then the app (users alice, bob) with the options `options(mock)` gives. */
export function useOAuthApp(dialect: DialectName, options: (mock: MockOAuth) => Record<string, string>): OAuthApp {
  const fx = {} as OAuthApp;
  const appOpts: AppOptions = { env: {}, users: ['alice', 'bob'] };
  beforeAll(async () => {
    fx.mock = await startMockOAuth();
    Object.assign(appOpts.env!, fx.mock.env);
  });
  useApp(dialect, appOpts, async (app) => {
    Object.assign(fx, app);
    fx.setOption = async (key, value) => {
      const res = await app.root.call('PUT', '/api/option/', { key, value });
      expect(res.body, `${key}=${value}`).toMatchObject({ success: true });
    };
    fx.self = async (c) => {
      const res = await c.call<UserPublic>('GET', '/api/user/self');
      expect(res.body.success, res.body.message).toBe(true);
      return res.body.data!;
    };
    for (const [k, v] of Object.entries({ QuotaForNewUser: '777', ...options(fx.mock) })) await fx.setOption(k, v);
  });
  afterAll(async () => fx.mock?.close());
  return fx;
}

/** What the shared tests need to know about a redirect provider (GitHub, OIDC, LinuxDO). */
export interface RedirectProviderCase {
  provider: 'github' | 'oidc' | 'linuxdo';
  label: string;
  field: 'github_id' | 'oidc_id' | 'linux_do_id';
  enabledOption: string;
  /** The provider's user number `n` as its user endpoint answers it. */
  user(n: number): Record<string, unknown>;
  /** The id Tollway stores for user `n`. */
  idOf(n: number): string;
  /** The display name a new user `n` gets. */
  nameOf(n: number): string;
  /** The email a new user `n` gets ('' when the provider gives none). */
  emailOf(n: number): string;
}

/** Login, registration, binding, state, switches and invites: the tests every redirect provider passes. */
export function redirectProviderTests(fx: OAuthApp, pc: RedirectProviderCase): void {
  const signIn = async (c: Client, n: number, aff?: string) => {
    const st = await oauthState(c, aff);
    return oauthCallback(c, pc.provider, fx.mock.issueCode(pc.provider, pc.user(n)), st.state, st.cookie);
  };
  const holders = async (n: number) =>
    fx.t.database.db.kysely.selectFrom('users').select(['id', 'username']).where(pc.field, '=', pc.idOf(n)).execute();

  it('a first sign-in creates the user (name, email, id, new-user quota) and logs in as password login does; the next finds it', async () => {
    const c = new Client(fx.t.app);
    const first = await signIn(c, 1);
    expect(first.body, first.body.message).toMatchObject({ success: true, message: 'login success' });
    const user = first.body.data!;
    expect(user.username).toMatch(new RegExp(`^${pc.provider}_\\d+$`));
    expect(user).toMatchObject({
      display_name: pc.nameOf(1),
      email: pc.emailOf(1),
      [pc.field]: pc.idOf(1),
      quota: 777,
      role: 1,
      inviter_id: 0,
      password: '',
    });
    const cookies = setCookies(first);
    expect(cookies[0]).toMatch(/^session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly/);
    expect(cookies.some((h) => /^oauth_state=; Path=\/api\/oauth; Max-Age=0/.test(h))).toBe(true);
    expect(await fx.self(c)).toMatchObject({ id: user.id, username: user.username });

    const again = new Client(fx.t.app);
    const second = await signIn(again, 1);
    expect(second.body).toMatchObject({ success: true, data: { id: user.id, username: user.username } });
    expect(await holders(1)).toEqual([{ id: user.id, username: user.username }]);
  });

  it('a logged-in user binds the account (message "bind"), then signing in with it logs in as that user', async () => {
    const alice = fx.users[0]!;
    const bind = await signIn(alice, 2);
    expect(bind.body).toEqual({ success: true, message: 'bind' });
    expect(await fx.self(alice)).toMatchObject({ username: 'alice', [pc.field]: pc.idOf(2) });
    const c = new Client(fx.t.app);
    const login = await signIn(c, 2);
    expect(login.body).toMatchObject({ success: true, data: { id: alice.userId, username: 'alice' } });
    expect(await holders(2)).toEqual([{ id: alice.userId, username: 'alice' }]);
  });

  it('a signed-in browser binds only with a bind state its console asked for (New-Api-User); another state signs in instead', async () => {
    const bob = fx.users[1]!;
    // A state fetched by a plain link (session cookie, no New-Api-User) is a sign-in state.
    const link = new Client(fx.t.app);
    link.cookie = bob.cookie;
    const st = await oauthState(link);
    const res = await oauthCallback(
      link,
      pc.provider,
      fx.mock.issueCode(pc.provider, pc.user(71)),
      st.state,
      st.cookie,
    );
    expect(res.body).toMatchObject({ success: true, message: 'login success' });
    expect(res.body.data!.id).not.toBe(bob.userId);
    expect((await fx.self(bob))[pc.field]).not.toBe(pc.idOf(71));
  });

  it('binding an account that another user holds is refused', async () => {
    const alice = fx.users[0]!;
    const bob = fx.users[1]!;
    expect((await signIn(alice, 3)).body).toEqual({ success: true, message: 'bind' });
    const refused = await signIn(bob, 3);
    expectRefused(refused);
    expect(refused.body).toMatchObject({
      success: false,
      message: `this ${pc.label} account is already bound to another user`,
    });
    expect((await fx.self(bob))[pc.field]).not.toBe(pc.idOf(3));
    expect(await holders(3)).toEqual([{ id: alice.userId, username: 'alice' }]);
  });

  it('a missing or different state is refused before the code is exchanged, and the state cookie is dropped', async () => {
    const c = new Client(fx.t.app);
    const exchanged = fx.mock.exchanges.length;
    const code = fx.mock.issueCode(pc.provider, pc.user(4));
    const missing = await oauthCallback(c, pc.provider, code, 'some-state');
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({
      success: false,
      message: 'sign-in state missing or expired: start the sign-in again from the login page',
    });
    const st = await oauthState(c);
    const wrong = await oauthCallback(c, pc.provider, code, `${st.state}x`, st.cookie);
    expect(wrong.body).toMatchObject({
      success: false,
      message: 'sign-in state does not match: start the sign-in again from the login page',
    });
    expect(setCookies(wrong).some((h) => h.startsWith('oauth_state=;'))).toBe(true);
    expect(fx.mock.exchanges.length).toBe(exchanged);
    expect(await holders(4)).toEqual([]);
    // The same code with the right state still works: nothing was spent.
    const st2 = await oauthState(c);
    expect((await oauthCallback(c, pc.provider, code, st2.state, st2.cookie)).body).toMatchObject({
      success: true,
      message: 'login success',
    });
  });

  it('a code the provider does not accept is refused with the provider reason', async () => {
    const c = new Client(fx.t.app);
    const st = await oauthState(c);
    const res = await oauthCallback(c, pc.provider, 'never-issued', st.state, st.cookie);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('the code is wrong or used');
    expectRefused(res);
  });

  it('with the provider disabled the sign-in is refused', async () => {
    await fx.setOption(pc.enabledOption, 'false');
    try {
      const c = new Client(fx.t.app);
      const res = await signIn(c, 1);
      expectRefused(res);
      expect(res.body).toMatchObject({
        success: false,
        message: `the administrator has not enabled ${pc.label} sign-in`,
      });
    } finally {
      await fx.setOption(pc.enabledOption, 'true');
    }
  });

  it('with registration closed an unknown account is refused while a known one still logs in; a banned or deleted holder is refused', async () => {
    await fx.setOption('RegisterEnabled', 'false');
    try {
      const refused = await signIn(new Client(fx.t.app), 5);
      expectRefused(refused);
      expect(refused.body).toMatchObject({
        success: false,
        message: `no user is bound to this ${pc.label} account and the administrator has disabled new user registration`,
      });
      expect(await holders(5)).toEqual([]);
      expect((await signIn(new Client(fx.t.app), 1)).body).toMatchObject({ success: true, message: 'login success' });
    } finally {
      await fx.setOption('RegisterEnabled', 'true');
    }
    const banned = await signIn(new Client(fx.t.app), 6);
    const id = banned.body.data!.id;
    expect((await fx.root.call('POST', '/api/user/manage', { id, action: 'disable' })).body.success).toBe(true);
    const again = await signIn(new Client(fx.t.app), 6);
    expect(again.body).toMatchObject({ success: false, message: 'user banned' });
    const removed = await signIn(new Client(fx.t.app), 8);
    expect(
      (await fx.root.call('POST', '/api/user/manage', { id: removed.body.data!.id, action: 'delete' })).body.success,
    ).toBe(true);
    const afterDelete = await signIn(new Client(fx.t.app), 8);
    expect(afterDelete.body).toMatchObject({
      success: false,
      message: `the user bound to this ${pc.label} account has been deleted`,
    });
    expect(await holders(8)).toHaveLength(1);
  });

  it('the invite code given to /api/oauth/state earns both invite rewards', async () => {
    await fx.setOption('AffEnabled', 'true');
    await fx.setOption('QuotaForInviter', '250000');
    await fx.setOption('QuotaForInvitee', '200');
    const bob = fx.users[1]!;
    const before = await fx.self(bob);
    const c = new Client(fx.t.app);
    const res = await signIn(c, 7, before.aff_code);
    expect(res.body).toMatchObject({ success: true, data: { quota: 977, inviter_id: bob.userId } });
    expect(await fx.self(bob)).toMatchObject({ aff_count: before.aff_count + 1, aff_quota: before.aff_quota + 250000 });
  });
}
