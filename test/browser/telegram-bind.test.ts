import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, motionSettled, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const USER = { username: 'tgbinder', password: 'user-pass-123' };
const BOT_TOKEN = '123456:browser-telegram-bot';

/** Telegram's login widget answer for account `id`, signed as Telegram does (HMAC-SHA-256 under SHA-256(bot token)). */
function widgetAnswer(id: number): Record<string, string> {
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
  const secret = crypto.createHash('sha256').update(BOT_TOKEN).digest();
  return { ...data, hash: crypto.createHmac('sha256', secret).update(check).digest('hex') };
}

/** Binding Telegram from the personal page, and a cross-site bind link that carries only the session cookie. */
describe('Telegram bind in Chromium', () => {
  let h: Harness;
  let page: Page;
  let root: Session;
  let user: Session;
  beforeAll(async () => {
    h = await startHarness();
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
    root = await loginSession(h.baseUrl, ROOT);
    for (const [key, value] of [
      ['TelegramOAuthEnabled', 'true'],
      ['TelegramBotToken', BOT_TOKEN],
      ['TelegramBotName', 'tollway_test_bot'],
    ]) {
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    }
    await apiAs(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    user = await loginSession(h.baseUrl, USER);
    ({ page } = await h.newPage());
    // The widget's script comes from telegram.org; the test answers for it by calling the widget's callback.
    await page.route('https://telegram.org/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }),
    );
  }, 60_000);
  afterAll(async () => h?.close());

  const telegramIdOf = async () => (await apiAs<{ telegram_id: string }>(user, 'GET', '/api/user/self')).telegram_id;

  it('a cross-site link to the bind URL (the session cookie alone) binds nothing', async () => {
    await login(page, USER);
    const res = await page.goto(`/api/oauth/telegram/bind?${new URLSearchParams(widgetAnswer(777))}`);
    expect(res!.status()).toBe(403);
    expect(await telegramIdOf()).toBe('');
  });

  it('the personal page binds Telegram through the widget as a console call', async () => {
    await page.goto('/app/me');
    await page.getByTestId('me-bind-telegram').click();
    await page.getByRole('dialog').waitFor();
    // The widget calls window.onTelegramAuth with the signed answer; the console installs it with the modal.
    type WidgetWindow = { onTelegramAuth?: (answer: unknown) => void };
    await page.waitForFunction(() => typeof (window as unknown as WidgetWindow).onTelegramAuth === 'function');
    await page.evaluate((answer) => (window as unknown as WidgetWindow).onTelegramAuth!(answer), widgetAnswer(4242));
    await expect.poll(telegramIdOf, { timeout: 10_000 }).toBe('4242');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByTestId('me-bindings').textContent()).toContain('4242');
    await h.shot(page, 'telegram-bind-done');
    await expect(page.getByTestId('me-bind-telegram').count()).resolves.toBe(0);
  });

  it('unlinks Telegram from the personal page, but not while it is the only way back into the account', async () => {
    await page.getByTestId('me-unbind-telegram').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-telegram').click();
    // The user has no email address: the server refuses and the console shows why.
    await page.getByText('Telegram 账户是唯一的登录方式，请先绑定邮箱').first().waitFor();
    expect(await telegramIdOf()).toBe('4242');
    await h.shot(page, 'telegram-unbind-refused');

    const self = await apiAs<{ id: number }>(user, 'GET', '/api/user/self');
    await apiAs(root, 'PUT', '/api/user/', { id: self.id, email: 'tgbinder@example.com' });
    await page.reload();
    await page.getByTestId('me-unbind-telegram').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-telegram').click();
    await expect.poll(telegramIdOf).toBe('');
    await page.getByTestId('me-bind-telegram').waitFor();
    await expect(page.getByTestId('me-unbind-telegram').count()).resolves.toBe(0);
    await h.shot(page, 'telegram-unbound');
  });
});
