import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs as api, loginSession, type Session } from './api-session.js';
import { login, privateConsole, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'codesroot', password: 'codes-root-pass-1' };
const USER = { username: 'codesuser', password: 'codes-user-pass-1' };
/** The check-in reward: 1234 quota. */
const REWARD = 1234;

/**
 * Issue 18 "one language on screen", in Chromium with the Chinese console: refusals with a code show the
 * console's Chinese text (not the server's English), and the log viewer writes a check-in row in Chinese.
 */
describe('server messages in the console language', () => {
  let h: Harness, dir: string, root: Session;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-codes-'));
    h = await startHarness({ WEB_DIST: privateConsole(dir) });
    await fetch(`${h.baseUrl}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }) });
    root = await loginSession(h.baseUrl, ROOT);
    await api(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    for (const [key, value] of [
      ['CheckInEnabled', 'true'],
      ['CheckInQuota', String(REWARD)],
      ['CheckInMaxQuota', '0'],
    ])
      await api(root, 'PUT', '/api/option/', { key, value });
  });
  afterAll(async () => {
    await h?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const chinesePage = async (): Promise<Page> => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'zh'));
    return page;
  };

  it('a wrong password shows the Chinese text, not the server English', async () => {
    const page = await chinesePage();
    await page.goto('/login');
    await page.getByTestId('login-username').fill(USER.username);
    await page.getByTestId('login-password').fill('not-the-password');
    await page.getByTestId('login-submit').click();
    const toast = page.locator('.ant-message-notice', { hasText: '用户名或密码错误' });
    await toast.waitFor();
    expect(await page.locator('.ant-message-notice', { hasText: 'username or password is wrong' }).count()).toBe(0);
    await page.waitForTimeout(500); // the toast's slide-in, for the picture
    await h.shot(page, 'error-codes-login-zh');
    await page.context().close();
  });

  it('a used redemption code shows the Chinese text', async () => {
    const [key] = await api<string[]>(root, 'POST', '/api/redemption/', { name: 'codes', count: 1, quota: 1000 });
    await api(root, 'POST', '/api/user/topup', { key });
    const page = await chinesePage();
    await login(page, USER);
    await page.goto('/app/wallet');
    await page.getByTestId('redeem-input').fill(key!);
    await page.getByTestId('redeem-button').click();
    await page.locator('.ant-message-notice', { hasText: '该兑换码已被使用' }).waitFor();
    expect(await page.getByText('redemption code already used').count()).toBe(0);
    await page.waitForTimeout(500);
    await h.shot(page, 'error-codes-redeem-used-zh');
    await page.context().close();
  });

  it('a failed channel test shows the Chinese text around the upstream reason', async () => {
    await api(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'codes-dead', type: 1, key: 'sk-dead', models: ['dead-model'], group: ['default'], base_url: 'http://127.0.0.1:1' },
    });
    const list = await api<{ items: { id: number; name: string }[] }>(root, 'GET', '/api/channel/?p=1&page_size=100');
    const id = list.items.find((c) => c.name === 'codes-dead')!.id;
    const page = await chinesePage();
    await login(page, ROOT);
    await page.goto('/admin/channels');
    await page.getByTestId(`channel-test-${id}`).click();
    const toast = page.locator('.ant-message-notice', { hasText: '渠道「codes-dead」测试失败：上游：' });
    await toast.waitFor();
    expect(await page.getByText('test failed').count()).toBe(0);
    await page.waitForTimeout(500); // the toast's slide-in, for the picture
    await h.shot(page, 'error-codes-channel-test-zh');
    await page.context().close();
  });

  it('the log viewer writes the check-in row in Chinese from its fields', async () => {
    const page = await chinesePage();
    await login(page, USER);
    const user = await loginSession(h.baseUrl, USER);
    await api(user, 'POST', '/api/user/check_in');
    await page.goto('/app/logs/api-usage');
    const row = page.locator('[data-testid^="log-row-"]', { hasText: '每日签到' }).first();
    await expect
      .poll(async () => {
        await page.getByTestId('logs-search').click();
        return row.count();
      })
      .toBeGreaterThan(0);
    expect(await row.textContent()).toContain(`获得 ${REWARD} 额度`);
    expect(await page.getByText('daily check-in: received').count()).toBe(0);
    await h.shot(page, 'error-codes-checkin-log-zh');
    await page.context().close();
  });
});
