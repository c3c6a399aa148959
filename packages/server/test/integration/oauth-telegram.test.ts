import crypto from 'node:crypto';
import type { UserPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useOAuthApp } from '../support/oauth-suite.js';

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
  signed({ id, first_name: 'Tele', last_name: `Gram${id}`, username: `tg${id}`, photo_url: `https://t.me/i/${id}.jpg`, auth_date: now(), ...extra });

describe.each(dialects)('Telegram login on %s', (dialect) => {
  const fx = useOAuthApp(dialect, () => ({ TelegramOAuthEnabled: 'true', TelegramBotToken: BOT_TOKEN, TelegramBotName: 'tollway_bot' }));

  const login = async (c: Client, fields: Record<string, string>, lang = 'en') => {
    const res = await c.call<UserPublic>('GET', `/api/oauth/telegram/login?${new URLSearchParams({ ...fields, lang })}`);
    if (res.body.success) c.userId = res.body.data!.id;
    return res;
  };
  const bind = (c: Client, fields: Record<string, string>) => c.call('GET', `/api/oauth/telegram/bind?${new URLSearchParams(fields)}`, undefined, { 'new-api-user': '' });

  it('a signed widget answer creates telegram_<n> and logs in (lang is not signed); the next finds the user', async () => {
    const c = new Client(fx.t.app);
    const first = await login(c, widget(1), 'zh');
    expect(first.body).toMatchObject({ success: true, message: 'login success', data: { display_name: 'Tele Gram1', telegram_id: '1', quota: 777 } });
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
    expect((await login(new Client(fx.t.app), { ...good, hash: '0'.repeat(64) })).body).toEqual({ success: false, message: bad });
    expect((await login(new Client(fx.t.app), { ...good, username: 'someone_else' })).body).toEqual({ success: false, message: bad });
    expect((await login(new Client(fx.t.app), { ...good, id: '4' })).body).toEqual({ success: false, message: bad });
    expect((await login(new Client(fx.t.app), signed({ id: 3, auth_date: now() }, '999:other-bot'))).body).toEqual({ success: false, message: bad });
    const stale = await login(new Client(fx.t.app), widget(3, { auth_date: now() - 24 * 3600 - 60 }));
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual({ success: false, message: 'Telegram login data has expired: sign in with Telegram again' });
    const rows = await fx.t.database.db.kysely.selectFrom('users').select('id').where('telegram_id', '=', '3').execute();
    expect(rows).toEqual([]);
    expect((await login(new Client(fx.t.app), widget(3, { auth_date: now() - 23 * 3600 }))).body.success).toBe(true);
  });

  it('bind redirects the logged-in user to /app/me with the id bound; refused when another user holds it or without a login', async () => {
    const alice = fx.users[0]!;
    const bob = fx.users[1]!;
    const res = await bind(alice, widget(10));
    expect(res.status).toBe(302);
    expect(res.raw.headers.location).toBe('/app/me');
    expect(await fx.self(alice)).toMatchObject({ telegram_id: '10' });
    expect((await login(new Client(fx.t.app), widget(10))).body).toMatchObject({ success: true, data: { id: alice.userId } });
    const refused = await bind(bob, widget(10));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ success: false, message: 'this Telegram account is already bound to another user' });
    const anonymous = await bind(new Client(fx.t.app), widget(11));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toBe('not logged in: log in, then bind Telegram from the personal settings page');
    const forged = await bind(bob, { ...widget(12), first_name: 'Forged' });
    expect(forged.body).toEqual({ success: false, message: 'Telegram login data is not signed by the bot: sign in with Telegram again' });
  });

  it('refuses when Telegram login is disabled, and unknown accounts when registration is closed', async () => {
    await fx.setOption('TelegramOAuthEnabled', 'false');
    try {
      expect((await login(new Client(fx.t.app), widget(1))).body).toEqual({ success: false, message: 'the administrator has not enabled Telegram sign-in' });
    } finally {
      await fx.setOption('TelegramOAuthEnabled', 'true');
    }
    await fx.setOption('RegisterEnabled', 'false');
    try {
      expect((await login(new Client(fx.t.app), widget(20))).body).toEqual({
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
    const res = await new Client(fx.t.app).call<UserPublic>('GET', `/api/oauth/telegram/login?${new URLSearchParams({ ...widget(41), lang: 'en', aff: before.aff_code })}`);
    expect(res.body).toMatchObject({ success: true, data: { telegram_id: '41', quota: 977, inviter_id: bob.userId } });
    expect(await fx.self(bob)).toMatchObject({ aff_count: before.aff_count + 1, aff_quota: before.aff_quota + 250000 });
  });
});
