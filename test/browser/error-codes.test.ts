import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LogType } from '@tollway/shared';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../packages/server/src/db/sqlite-driver.js';
import { apiAs as api, loginSession, type Session } from './api-session.js';
import { login, motionSettled, privateConsole, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'codesroot', password: 'codes-root-pass-1' };
const USER = { username: 'codesuser', password: 'codes-user-pass-1' };
/** The check-in reward: 1234 quota. */
const REWARD = 1234;
/** A Midjourney task that timed out and was refunded, as the task engine logs it (relay/tasks/refund.ts). */
const REFUND = { taskId: 'mj-refund-1', action: 'IMAGINE', quota: 1500 };

// better-sqlite3 of the line that runs on this Node.js (a row is written beside the running server).
const Database = await loadSqliteDriver();

/**
 * Issue 18 "one language on screen", in Chromium with the Chinese console: refusals with a code show the
 * console's Chinese text (not the server's English), a schema's own rule (a channel's base URL) and an option's
 * check (a sensitive-word pattern, a port entry) included, and the log viewer writes check-in and task-refund rows
 * in the viewer's language from their fields.
 */
describe('server messages in the console language', () => {
  let h: Harness, dir: string, root: Session;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-codes-'));
    h = await startHarness({ WEB_DIST: privateConsole(dir), SQLITE_PATH: path.join(dir, 'tollway.db') });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
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

  const pageIn = async (lang: 'zh' | 'en'): Promise<Page> => {
    const { context, page } = await h.newPage();
    await context.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
    return page;
  };
  const chinesePage = () => pageIn('zh');
  /** Nothing on the page (toasts, form messages) holds `english`. */
  const noEnglish = async (page: Page, english: string) =>
    expect(await page.getByText(english).count(), english).toBe(0);

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
      channel: {
        name: 'codes-dead',
        type: 1,
        key: 'sk-dead',
        models: ['dead-model'],
        group: ['default'],
        base_url: 'http://127.0.0.1:1',
      },
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

  it("a channel's base URL that is not http(s) shows the rule's Chinese text, not the schema's English reason", async () => {
    const page = await chinesePage();
    await login(page, ROOT);
    await page.goto('/admin/channels');
    await page.getByTestId('channels-add').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('channel-form-name').fill('codes-ftp');
    await page.getByTestId('channel-form-base-url').fill('ftp://upstream.example.com');
    await page.getByTestId('channel-form-key').fill('sk-codes-ftp');
    await page.getByTestId('channel-form-models').click();
    await page.keyboard.type('ftp-model');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await page.getByTestId('channel-form-submit').click();
    await page
      .locator('.ant-message-notice', { hasText: '“channel.base_url”必须以 http:// 或 https:// 开头' })
      .waitFor();
    await noEnglish(page, 'must start with');
    await noEnglish(page, '填写有误');
    await page.waitForTimeout(500); // the toast's slide-in, for the picture
    await h.shot(page, 'error-codes-channel-base-url-zh');
    await page.context().close();
  });

  it('an option the server refuses (a sensitive-word pattern) and a port entry the form refuses show Chinese only', async () => {
    const page = await chinesePage();
    await login(page, ROOT);
    await page.goto('/admin/settings?tab=operation');
    const words = page.getByTestId('option-SensitiveWords');
    await words.scrollIntoViewIfNeeded();
    await words.fill('fine\nregex:(');
    await page.getByTestId('settings-save-sensitive').click();
    await page.locator('.ant-message-notice', { hasText: 'SensitiveWords 第 2 行：正则表达式无效' }).waitFor();
    await noEnglish(page, 'invalid regular expression');
    await page.waitForTimeout(500);
    await h.shot(page, 'error-codes-option-sensitive-zh');

    await page.goto('/admin/settings?tab=system');
    const ports = page.getByTestId('option-fetch_setting.allowed_ports');
    await ports.scrollIntoViewIfNeeded();
    await ports.fill('443, 99999');
    await page.getByTestId('settings-save-fetch').click();
    const section = page.getByTestId('settings-section-fetch');
    await expect
      .poll(() => section.locator('.ant-form-item-explain-error').textContent())
      .toBe('“99999”不是有效的端口（1-65535）或端口范围，应类似 8000-9000');
    await noEnglish(page, 'each entry must be');
    await section.screenshot({ path: path.join(SCREENSHOTS, 'error-codes-fetch-port-zh.png') });
    await page.context().close();
  });

  it('the log viewer writes a task-refund row in Chinese and in English from its fields', async () => {
    const user = await loginSession(h.baseUrl, USER);
    const db = new Database(path.join(dir, 'tollway.db'));
    try {
      const event = {
        kind: 'task_refund',
        task_id: REFUND.taskId,
        action: REFUND.action,
        quota: REFUND.quota,
        reason_code: 'timeout',
      };
      db.prepare(
        `INSERT INTO logs (user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens, completion_tokens, use_time,
           is_stream, channel_id, channel_name, token_id, "group", ip, request_id, other)
         VALUES (?, ?, ?, ?, ?, '', 'midjourney', ?, 0, 0, 0, 0, 0, '', 0, 'default', '', 'req-refund-1', ?)`,
      ).run(
        user.id,
        Math.floor(Date.now() / 1000),
        LogType.System,
        `task ${REFUND.action} ${REFUND.taskId} failed (task timed out): ${REFUND.quota} quota refunded`,
        USER.username,
        REFUND.quota,
        JSON.stringify({ task_id: REFUND.taskId, task_refund: REFUND.quota, event }),
      );
    } finally {
      db.close();
    }
    for (const [lang, text, english] of [
      ['zh', `任务 ${REFUND.action} ${REFUND.taskId} 失败（任务超时），已退还 ${REFUND.quota} 额度`, 'quota refunded'],
      [
        'en',
        `Task ${REFUND.action} ${REFUND.taskId} failed (the task timed out): ${REFUND.quota} quota refunded`,
        'failed (task timed out)',
      ],
    ] as const) {
      const page = await pageIn(lang);
      await login(page, USER);
      await page.goto('/app/logs/api-usage');
      const row = page.locator('[data-testid^="log-row-"]', { hasText: REFUND.taskId }).first();
      await expect
        .poll(async () => {
          await page.getByTestId('logs-search').click();
          return row.count();
        })
        .toBeGreaterThan(0);
      expect(await row.textContent()).toContain(text);
      // The stored English content is the fallback only: it is not what the row shows.
      await noEnglish(page, english);
      await h.shot(page, `error-codes-task-refund-log-${lang}`);
      await page.context().close();
    }
  });
});
