import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MOCK_CLIENTS } from '../support/mock-oauth.js';
import { oauthCallback, oauthState } from '../support/oauth-flow.js';
import { useOAuthApp } from '../support/oauth-suite.js';
import { enableTwoFactor, secondStep, setCookieHeaders, TotpClock, type Challenge } from '../support/twofa.js';

const BOT_TOKEN = '123456:telegram-bot-token';

/** Telegram's login widget answer for account `id`, signed as Telegram documents it. */
function telegramWidget(id: number): Record<string, string> {
  const data: Record<string, string> = {
    id: String(id),
    first_name: 'Tele',
    username: `tg${id}`,
    auth_date: String(Math.floor(Date.now() / 1000)),
  };
  const check = Object.keys(data)
    .sort()
    .map((k) => `${k}=${data[k]}`)
    .join('\n');
  const key = crypto.createHash('sha256').update(BOT_TOKEN).digest();
  return { ...data, hash: crypto.createHmac('sha256', key).update(check).digest('hex') };
}

describe.each(dialects)('third-party sign-in of a two-factor user on %s', (dialect) => {
  const fx = useOAuthApp(dialect, () => ({
    GitHubOAuthEnabled: 'true',
    GitHubClientId: MOCK_CLIENTS.github.id,
    GitHubClientSecret: MOCK_CLIENTS.github.secret,
    TelegramOAuthEnabled: 'true',
    TelegramBotToken: BOT_TOKEN,
    TelegramBotName: 'tollway_bot',
  }));
  const clock = new TotpClock();
  beforeAll(() => clock.start());
  afterAll(() => clock.stop());

  const github = async (c: Client, id: number) => {
    const st = await oauthState(c);
    const code = fx.mock.issueCode('github', { id, login: `gh${id}`, name: `GH ${id}`, email: null });
    return oauthCallback(c, 'github', code, st.state, st.cookie);
  };
  const telegram = (c: Client, id: number) =>
    c.call<Challenge & { id: number }>('GET', `/api/oauth/telegram/login?${new URLSearchParams(telegramWidget(id))}`);

  it('GitHub: a user with 2FA on gets the second step instead of a session; the code completes it', async () => {
    const first = new Client(fx.t.app);
    expect((await github(first, 7001)).body.success).toBe(true);
    const { secret } = await enableTwoFactor(first, clock);

    const c = new Client(fx.t.app);
    const res = await github(c, 7001);
    expect(res.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(setCookieHeaders(res).some((h) => h.startsWith('session='))).toBe(false);
    const token = (res.body.data as unknown as Challenge).flow_token;
    expect((await secondStep(c, token, '000000')).body.success).toBe(false);
    const ok = await secondStep(c, token, clock.code(secret));
    expect(ok.body).toMatchObject({ success: true, data: { id: first.userId } });
    expect(await fx.self(c)).toMatchObject({ id: first.userId, github_id: '7001' });
  });

  it('Telegram: the same second step, and a backup code works there too', async () => {
    const first = new Client(fx.t.app);
    const signedUp = await telegram(first, 8001);
    expect(signedUp.body.success).toBe(true);
    first.userId = signedUp.body.data!.id;
    const { backupCodes } = await enableTwoFactor(first, clock);

    const c = new Client(fx.t.app);
    const res = await telegram(c, 8001);
    expect(res.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(setCookieHeaders(res).some((h) => h.startsWith('session='))).toBe(false);
    const ok = await secondStep(c, res.body.data!.flow_token, backupCodes[0]!);
    expect(ok.body).toMatchObject({ success: true, data: { id: first.userId } });
    expect(await fx.self(c)).toMatchObject({ id: first.userId, telegram_id: '8001' });
  });
});
