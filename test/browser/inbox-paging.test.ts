import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession } from './api-session.js';
import { login, privateConsole, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'pgroot', password: 'pg-root-pass-1' };
const ADMIN = { username: 'pgadmin', password: 'pg-admin-pass-1' };
const USER = { username: 'pgreader', password: 'pg-reader-pass-1' };
/** More messages than one page of 10 holds. */
const MESSAGES = 12;

/** The range text of the page's (first) pagination. */
const rangeText = (page: Page) => page.locator('.ant-pagination-total-text').first().textContent();

/**
 * "Items x–y of n" on the inbox and the message-management list (and the edit drawer's recipients), zh and en; and the
 * root-only audit page answering an administrator with the shared 403 page instead of a redirect.
 */
describe('inbox and message list ranges, audit 403 in Chromium', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-inbox-paging-'));
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: privateConsole(dir) });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    const root = await loginSession(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops', role: 10 });
    const userId = (await apiAs<{ id: number }>(root, 'POST', '/api/user/', { ...USER, display_name: 'Reader' })).id;
    for (let i = 1; i <= MESSAGES; i++) {
      await apiAs(root, 'POST', '/api/admin/messages', {
        title: `Notice ${i}`,
        content: `Body ${i}`,
        format: 'markdown',
        user_ids: [userId, root.id],
      });
    }
  });
  afterAll(async () => {
    await h?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the inbox names the range shown: page 1 and 2 in Chinese, then in English', async () => {
    const { page, context } = await h.newPage();
    await login(page, USER);
    await page.goto('/app/inbox');
    await page.getByTestId('inbox-list').locator('.tw-inbox-item').first().waitFor();
    await expect.poll(() => rangeText(page)).toBe(`第 1 - 10 条，共 ${MESSAGES} 条`);
    await h.shot(page, 'inbox-paging-01-zh');
    await page.locator('.ant-pagination-item-2').click();
    await expect.poll(() => rangeText(page)).toBe(`第 11 - ${MESSAGES} 条，共 ${MESSAGES} 条`);
    // The range follows the page number at once; the rows follow when page 2's answer arrives.
    await expect.poll(() => page.getByTestId('inbox-list').locator('.tw-inbox-item').count()).toBe(MESSAGES - 10);
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'en'));
    await page.reload();
    await page.getByTestId('inbox-list').locator('.tw-inbox-item').first().waitFor();
    await expect.poll(() => rangeText(page)).toBe(`Items 1 - 10 of ${MESSAGES}`);
    await h.shot(page, 'inbox-paging-02-en');
    await context.close();
  });

  it('message management names the range of the list and of the edit drawer’s recipients', async () => {
    const { page, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(page, ROOT);
    await page.goto('/admin/messages');
    await page.getByTestId('message-table').locator('.ant-table-row').first().waitFor();
    await expect.poll(() => rangeText(page)).toBe(`Items 1 - 10 of ${MESSAGES}`);
    await h.shot(page, 'inbox-paging-03-messages-en');
    const row = page.getByTestId('message-table').locator('.ant-table-row').first();
    await row.locator('[data-testid^="message-edit-"]').click();
    const recipients = page.getByTestId('message-recipient-table');
    await recipients.locator('.ant-table-row').first().waitFor();
    // The drawer's recipient table is the second paged list on the page.
    await expect
      .poll(() => page.locator('.ant-pagination-total-text').allTextContents())
      .toEqual([`Items 1 - 10 of ${MESSAGES}`, 'Items 1 - 2 of 2']);
    await h.shot(page, 'inbox-paging-04-recipients-en');
    await context.close();
  });

  it('an administrator opening the root-only audit page sees the 403 page at that address, without a toast', async () => {
    const { page, context } = await h.newPage();
    await login(page, ADMIN);
    await page.goto('/admin/audit');
    await page.getByTestId('forbidden').waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/audit');
    expect(await page.getByTestId('forbidden').textContent()).toContain('此页面仅超级管理员可用');
    expect(await page.locator('.ant-message-notice').count()).toBe(0);
    expect(await page.getByTestId('audit-table').count()).toBe(0);
    await h.shot(page, 'inbox-paging-05-audit-403');
    // Signed out, the page asks for a login and comes back here.
    await context.clearCookies();
    await page.evaluate(() => localStorage.removeItem('user'));
    await page.goto('/admin/audit');
    await page.waitForURL((u) => u.pathname === '/login');
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/admin/audit');
    await context.close();
  });
});
