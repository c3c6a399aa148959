import crypto from 'node:crypto';
import type { UserPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { Client, createUserClient } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { oauthState, setCookies } from '../support/oauth-flow.js';
import { useOAuthApp } from '../support/oauth-suite.js';
import { expectRefused } from '../support/refusal.js';

const BOT_TOKEN = '123456:telegram-bot-token';
const now = () => Math.floor(Date.now() / 1000);

/** Telegram's login widget signature, from its published algorithm: hex HMAC-SHA-256 under SHA-256(bot token). */
function signed(fields: Record<string, string | number>, token = BOT_TOKEN): Record<string, string> {
  const data = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
  const checkString = Object.keys(data)
    .sort()
    .map((k) => `${k}=${data[k]}`)
    .join('\n');
  const secret = crypto.createHash('sha256').update(token).digest();
  return { ...data, hash: crypto.createHmac('sha256', secret).update(checkString).digest('hex') };
}

const widget = (id: number, extra: Record<string, string | number> = {}) =>
  signed({
    id,
    first_name: 'Tele',
    last_name: `Gram${id}`,
    username: `tg${id}`,
    photo_url: `https://t.me/i/${id}.jpg`,
    auth_date: now(),
    ...extra,
  });

describe.each(dialects)('Telegram login on %s', (dialect) => {
  const fx = useOAuthApp(dialect, () => ({
    TelegramOAuthEnabled: 'true',
    TelegramBotToken: BOT_TOKEN,
    TelegramBotName: 'tollway_bot',
  }));

  const login = async (c: Client, fields: Record<string, string>, lang = 'en') => {
    const res = await c.call<UserPublic>(
      'GET',
      `/api/oauth/telegram/login?${new URLSearchParams({ ...fields, lang })}`,
    );
    if (res.body.success) c.userId = res.body.data!.id;
    return res;
  };
  /** The widget's redirect: a top-level navigation, so cookies only, never New-Api-User. */
  const bind = (c: Client, fields: Record<string, string>) =>
    c.call('GET', `/api/oauth/telegram/bind?${new URLSearchParams(fields)}`, undefined, { 'new-api-user': '' });
  /** `c`'s session with `extra` cookies (the state cookie) added; `header` false drops New-Api-User (a plain link). */
  const withCookie = (c: Client, extra: string, header = true): Client => {
    const copy = new Client(fx.t.app);
    copy.cookie = [c.cookie, extra].filter(Boolean).join('; ');
    copy.userId = header ? c.userId : undefined;
    return copy;
  };

  it('a signed widget answer creates telegram_<n> and logs in (lang is not signed); the next finds the user', async () => {
    const c = new Client(fx.t.app);
    const first = await login(c, widget(1), 'zh');
    expect(first.body).toMatchObject({
      success: true,
      message: 'login success',
      data: { display_name: 'Tele Gram1', telegram_id: '1', quota: 777 },
    });
    expect(first.body.data!.username).toMatch(/^telegram_\d+$/);
    expect(await fx.self(c)).toMatchObject({ id: first.body.data!.id });
    const second = await login(new Client(fx.t.app), widget(1));
    expect(second.body.data!.id).toBe(first.body.data!.id);
    // A widget answer with only the required fields is signed over those alone.
    const minimal = await login(new Client(fx.t.app), signed({ id: 2, auth_date: now() }));
    expect(minimal.body).toMatchObject({ success: true, data: { telegram_id: '2' } });
  });

  it('refuses a wrong hash, a changed field, another bot token and an auth_date over a day old', async () => {
    const bad = 'Telegram login data is not signed by the bot: sign in with Telegram again';
    const good = widget(3);
    expect((await login(new Client(fx.t.app), { ...good, hash: '0'.repeat(64) })).body).toMatchObject({
      success: false,
      message: bad,
    });
    expect((await login(new Client(fx.t.app), { ...good, username: 'someone_else' })).body).toMatchObject({
      success: false,
      message: bad,
    });
    expect((await login(new Client(fx.t.app), { ...good, id: '4' })).body).toMatchObject({
      success: false,
      message: bad,
    });
    expect(
      (await login(new Client(fx.t.app), signed({ id: 3, auth_date: now() }, '999:other-bot'))).body,
    ).toMatchObject({ success: false, message: bad });
    const stale = await login(new Client(fx.t.app), widget(3, { auth_date: now() - 24 * 3600 - 60 }));
    expectRefused(stale);
    expect(stale.body).toMatchObject({
      success: false,
      message: 'Telegram login data has expired: sign in with Telegram again',
    });
    const rows = await fx.t.database.db.kysely
      .selectFrom('users')
      .select('id')
      .where('telegram_id', '=', '3')
      .execute();
    expect(rows).toEqual([]);
    expect((await login(new Client(fx.t.app), widget(3, { auth_date: now() - 23 * 3600 }))).body.success).toBe(true);
  });

  const telegramIdOf = async (id: number) =>
    (
      await fx.t.database.db.kysely
        .selectFrom('users')
        .select('telegram_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).telegram_id;

  it('the console binds with New-Api-User (message "bind"); refused when another user holds it, without a login or with a forged widget', async () => {
    const alice = fx.users[0]!;
    const bob = fx.users[1]!;
    const res = await alice.call('GET', `/api/oauth/telegram/bind?${new URLSearchParams(widget(10))}`);
    expect(res.body).toEqual({ success: true, message: 'bind' });
    expect(await fx.self(alice)).toMatchObject({ telegram_id: '10' });
    expect((await login(new Client(fx.t.app), widget(10))).body).toMatchObject({
      success: true,
      data: { id: alice.userId },
    });
    const refused = await bob.call('GET', `/api/oauth/telegram/bind?${new URLSearchParams(widget(10))}`);
    expectRefused(refused);
    expect(refused.body).toMatchObject({
      success: false,
      message: 'this Telegram account is already bound to another user',
    });
    const anonymous = await bind(new Client(fx.t.app), widget(11));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toBe('not logged in: log in, then bind Telegram from the personal settings page');
    const forged = await bob.call(
      'GET',
      `/api/oauth/telegram/bind?${new URLSearchParams({ ...widget(12), first_name: 'Forged' })}`,
    );
    expect(forged.body).toMatchObject({
      success: false,
      message: 'Telegram login data is not signed by the bot: sign in with Telegram again',
    });
  });

  it("the widget's redirect binds only with a bind state its own session asked for, then goes to /app/me", async () => {
    const bob = fx.users[1]!;
    const st = await oauthState(bob);
    const res = await bind(withCookie(bob, st.cookie), { ...widget(13), state: st.state });
    expect(res.status).toBe(302);
    expect(res.raw.headers.location).toBe('/app/me');
    expect(setCookies(res).some((h) => h.startsWith('oauth_state=;'))).toBe(true);
    expect(await telegramIdOf(bob.userId!)).toBe('13');
  });

  it("a cross-site link carrying only the victim's session cookie binds nothing (no header, no state, a sign-in state, another session's state)", async () => {
    const victim = await createUserClient(fx.t.app, fx.root, 'tg-victim');
    const attacker = fx.users[0]!;
    const noState = await bind(victim, widget(30));
    expect(noState.status).toBe(403);
    expect(noState.body).toMatchObject({
      success: false,
      message: 'sign-in state missing or expired: start the sign-in again from the login page',
    });
    // A state the victim's browser got without the console (a top-level link to /api/oauth/state) is a sign-in state.
    const signInState = await oauthState(withCookie(victim, '', false));
    const plain = await bind(withCookie(victim, signInState.cookie), { ...widget(30), state: signInState.state });
    expect(plain.status).toBe(403);
    expect(plain.body.message).toBe(
      'this bind was not started from your personal settings page: bind Telegram from there again',
    );
    // The attacker's own bind state, planted in the victim's browser, names the attacker's session, not the victim's.
    const planted = await oauthState(attacker);
    const cross = await bind(withCookie(victim, planted.cookie), { ...widget(30), state: planted.state });
    expect(cross.status).toBe(403);
    expect(await telegramIdOf(victim.userId!)).toBe('');
    expect(
      await fx.t.database.db.kysely
        .selectFrom('user_identities')
        .select('user_id')
        .where('provider', '=', 'telegram')
        .where('external_id', '=', '30')
        .execute(),
    ).toEqual([]);
  });

  it('a login sent from another site (Sec-Fetch-Site: cross-site) is refused and sets no session', async () => {
    const res = await new Client(fx.t.app).call(
      'GET',
      `/api/oauth/telegram/login?${new URLSearchParams({ ...widget(50), lang: 'en' })}`,
      undefined,
      {
        'sec-fetch-site': 'cross-site',
      },
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      success: false,
      message: "Telegram sign-in must start from this site's login page",
    });
    expect(setCookies(res).some((h) => h.startsWith('session='))).toBe(false);
    const same = await new Client(fx.t.app).call(
      'GET',
      `/api/oauth/telegram/login?${new URLSearchParams({ ...widget(50), lang: 'en' })}`,
      undefined,
      {
        'sec-fetch-site': 'same-origin',
      },
    );
    expect(same.body.success).toBe(true);
  });

  it('refuses when Telegram login is disabled, and unknown accounts when registration is closed', async () => {
    await fx.setOption('TelegramOAuthEnabled', 'false');
    try {
      expect((await login(new Client(fx.t.app), widget(1))).body).toMatchObject({
        success: false,
        message: 'the administrator has not enabled Telegram sign-in',
      });
    } finally {
      await fx.setOption('TelegramOAuthEnabled', 'true');
    }
    await fx.setOption('RegisterEnabled', 'false');
    try {
      expect((await login(new Client(fx.t.app), widget(20))).body).toMatchObject({
        success: false,
        message: 'no user is bound to this Telegram account and the administrator has disabled new user registration',
      });
      expect((await login(new Client(fx.t.app), widget(1))).body.success).toBe(true);
    } finally {
      await fx.setOption('RegisterEnabled', 'true');
    }
  });

  it('a new account signed up with an invite code (aff, not signed) earns both invite rewards', async () => {
    await fx.setOption('AffEnabled', 'true');
    await fx.setOption('QuotaForInviter', '250000');
    await fx.setOption('QuotaForInvitee', '200');
    const bob = fx.users[1]!;
    const before = await fx.self(bob);
    const res = await new Client(fx.t.app).call<UserPublic>(
      'GET',
      `/api/oauth/telegram/login?${new URLSearchParams({ ...widget(41), lang: 'en', aff: before.aff_code })}`,
    );
    expect(res.body).toMatchObject({ success: true, data: { telegram_id: '41', quota: 977, inviter_id: bob.userId } });
    expect(await fx.self(bob)).toMatchObject({ aff_count: before.aff_count + 1, aff_quota: before.aff_quota + 250000 });
  });
});
