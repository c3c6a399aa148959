import type { UserPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MOCK_WECHAT_TOKEN } from '../support/mock-oauth.js';
import { useOAuthApp } from '../support/oauth-suite.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('WeChat QR login on %s', (dialect) => {
  const fx = useOAuthApp(dialect, (mock) => ({
    WeChatAuthEnabled: 'true',
    WeChatServerAddress: `${mock.url}/`,
    WeChatServerToken: MOCK_WECHAT_TOKEN,
  }));

  const login = async (c: Client, openid: string) => {
    const res = await c.call<UserPublic>('GET', `/api/oauth/wechat?code=${fx.mock.issueCode('wechat', openid)}`);
    if (res.body.success) c.userId = res.body.data!.id;
    return res;
  };
  const bind = (c: Client, openid: string) =>
    c.call('GET', `/api/oauth/wechat/bind?code=${fx.mock.issueCode('wechat', openid)}`);

  it('a first code creates wechat_<n> and logs in; the next code for the same openid finds the user', async () => {
    const c = new Client(fx.t.app);
    const first = await login(c, 'openid-1');
    expect(first.body).toMatchObject({
      success: true,
      message: 'login success',
      data: { display_name: 'WeChat User', wechat_id: 'openid-1', quota: 777 },
    });
    expect(first.body.data!.username).toMatch(/^wechat_\d+$/);
    expect(String(first.raw.headers['set-cookie'])).toMatch(/^session=/);
    expect(await fx.self(c)).toMatchObject({ id: first.body.data!.id });
    const second = await login(new Client(fx.t.app), 'openid-1');
    expect(second.body.data!.id).toBe(first.body.data!.id);
    expect(fx.mock.exchanges.at(-1)).toEqual({
      provider: 'wechat',
      fields: { code: expect.stringMatching(/^wechat-code-/) },
    });
  });

  it("refuses a code the WeChat server rejects, with the server's reason", async () => {
    const res = await new Client(fx.t.app).call('GET', '/api/oauth/wechat?code=123456');
    expect(res.body).toMatchObject({
      success: false,
      message: 'WeChat verification failed: invalid or expired verification code',
    });
    await fx.setOption('WeChatServerToken', 'wrong-token');
    try {
      expect((await login(new Client(fx.t.app), 'openid-x')).body).toMatchObject({
        success: false,
        message: 'WeChat verification failed: access token invalid',
      });
    } finally {
      await fx.setOption('WeChatServerToken', MOCK_WECHAT_TOKEN);
    }
  });

  it('binds for the logged-in user; refused when another user holds the openid or without a login', async () => {
    const alice = fx.users[0]!;
    const bob = fx.users[1]!;
    expect((await bind(alice, 'openid-alice')).body).toMatchObject({ success: true, message: 'bind' });
    expect(await fx.self(alice)).toMatchObject({ wechat_id: 'openid-alice' });
    expect((await login(new Client(fx.t.app), 'openid-alice')).body).toMatchObject({
      success: true,
      data: { id: alice.userId },
    });
    const refused = await bind(bob, 'openid-alice');
    expectRefused(refused);
    expect(refused.body).toMatchObject({
      success: false,
      message: 'this WeChat account is already bound to another user',
    });
    expect((await fx.self(bob)).wechat_id).toBe('');
    const anonymous = await bind(new Client(fx.t.app), 'openid-anon');
    expect(anonymous.status).toBe(401);
  });

  it("binds through new-api's current console call (POST, code in a JSON body), with the same refusals", async () => {
    const alice = fx.users[0]!;
    const bob = fx.users[1]!;
    const post = (c: Client, code: string) => c.call('POST', '/api/oauth/wechat/bind', { code });
    expect((await post(bob, fx.mock.issueCode('wechat', 'openid-bob'))).body).toEqual({
      success: true,
      message: 'bind',
    });
    expect(await fx.self(bob)).toMatchObject({ wechat_id: 'openid-bob' });
    expect((await login(new Client(fx.t.app), 'openid-bob')).body).toMatchObject({ data: { id: bob.userId } });
    // One account per WeChat identity: alice keeps hers and cannot take bob's.
    const taken = await post(alice, fx.mock.issueCode('wechat', 'openid-bob'));
    expectRefused(taken, 'taken', 'this WeChat account is already bound to another user');
    expect(await fx.self(alice)).toMatchObject({ wechat_id: 'openid-alice' });
    const wrong = await post(alice, '123456');
    expectRefused(wrong, 'wrong code', 'WeChat verification failed: invalid or expired verification code');
    expect((await post(new Client(fx.t.app), fx.mock.issueCode('wechat', 'openid-anon'))).status).toBe(401);
    await fx.setOption('WeChatAuthEnabled', 'false');
    try {
      const off = await post(alice, fx.mock.issueCode('wechat', 'openid-off'));
      expectRefused(off, 'disabled', 'the administrator has not enabled WeChat sign-in');
    } finally {
      await fx.setOption('WeChatAuthEnabled', 'true');
    }
    expect(await fx.self(alice)).toMatchObject({ wechat_id: 'openid-alice' });
  });

  it('refuses when WeChat login is disabled, and unknown openids when registration is closed', async () => {
    await fx.setOption('WeChatAuthEnabled', 'false');
    try {
      const res = await login(new Client(fx.t.app), 'openid-1');
      expect(res.body).toMatchObject({ success: false, message: 'the administrator has not enabled WeChat sign-in' });
    } finally {
      await fx.setOption('WeChatAuthEnabled', 'true');
    }
    await fx.setOption('RegisterEnabled', 'false');
    try {
      const res = await login(new Client(fx.t.app), 'openid-new');
      expect(res.body).toMatchObject({
        success: false,
        message: 'no user is bound to this WeChat account and the administrator has disabled new user registration',
      });
      expect((await login(new Client(fx.t.app), 'openid-1')).body.success).toBe(true);
    } finally {
      await fx.setOption('RegisterEnabled', 'true');
    }
  });

  it('a new account signed up with an invite code (aff) earns both invite rewards; an unknown code gives none', async () => {
    await fx.setOption('AffEnabled', 'true');
    await fx.setOption('QuotaForInviter', '250000');
    await fx.setOption('QuotaForInvitee', '200');
    const bob = fx.users[1]!;
    const before = await fx.self(bob);
    const res = await new Client(fx.t.app).call<UserPublic>(
      'GET',
      `/api/oauth/wechat?code=${fx.mock.issueCode('wechat', 'openid-invited')}&aff=${before.aff_code}`,
    );
    expect(res.body).toMatchObject({
      success: true,
      data: { wechat_id: 'openid-invited', quota: 977, inviter_id: bob.userId },
    });
    expect(await fx.self(bob)).toMatchObject({ aff_count: before.aff_count + 1, aff_quota: before.aff_quota + 250000 });
    const stranger = await new Client(fx.t.app).call<UserPublic>(
      'GET',
      `/api/oauth/wechat?code=${fx.mock.issueCode('wechat', 'openid-uninvited')}&aff=nosuchcode`,
    );
    expect(stranger.body).toMatchObject({ success: true, data: { quota: 777, inviter_id: 0 } });
  });
});
