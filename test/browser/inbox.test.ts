import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession } from './api-session.js';
import { login, motionSettled, type Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const USER = { username: 'reader', password: 'reader-pass-123' };

/** Inbox and message management in Chromium: an administrator sends, the user reads, counts follow. */
describe('inbox and admin messages in Chromium', () => {
  let h: Harness;
  let admin: Page;
  let user: Page;
  beforeAll(async () => {
    // A private copy of the console: a rebuild during the run must not pull its chunks away.
    h = await startPrivateHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    ({ page: admin } = await h.newPage());
    ({ page: user } = await h.newPage());
    await login(admin, ROOT);
    await apiAs(await loginSession(h.baseUrl, ROOT), 'POST', '/api/user/', { ...USER, display_name: 'Reader' });
  });
  afterAll(async () => h?.close());

  it('an administrator writes a Markdown message to a user from the messages screen', async () => {
    await admin.goto('/admin/messages');
    await admin.getByTestId('message-create').click();
    await motionSettled(admin); // until it has opened: a click while it still moves can miss
    await admin.getByTestId('message-submit').click();
    await admin
      .getByText(/请输入标题|title is required/)
      .first()
      .waitFor();
    await admin.getByTestId('message-title').fill('Scheduled maintenance');
    await admin
      .getByTestId('message-content-input')
      .fill('The gateway restarts **tonight at 22:00**.\n\n- no action needed');
    await admin.getByTestId('message-recipients').click();
    await admin.keyboard.type('read');
    await admin.locator('.ant-select-item-option').filter({ hasText: 'reader' }).first().click();
    await admin.keyboard.press('Escape');
    await h.shot(admin, 'inbox-01-create-drawer');
    await admin.getByTestId('message-submit').click();
    const row = admin.getByTestId('message-table').locator('tr', { hasText: 'Scheduled maintenance' });
    await row.waitFor();
    // Recipients 1, read 0.
    await expect.poll(async () => (await row.locator('td').allTextContents()).slice(4, 6)).toEqual(['1', '0']);
    await h.shot(admin, 'inbox-02-message-list');
  });

  it('the user sees the unread badge, reads the message rendered, and the badge clears', async () => {
    await login(user, USER);
    const badge = user.locator('.ant-badge', { has: user.getByTestId('inbox-bell') }).locator('.ant-badge-count');
    await expect.poll(() => badge.textContent()).toBe('1');
    await user.getByTestId('inbox-bell').click();
    await user.waitForURL('**/app/inbox');
    const item = user.getByTestId('inbox-list').locator('.tw-inbox-item').first();
    await expect.poll(() => item.textContent()).toContain('The gateway restarts tonight at 22:00');
    await h.shot(user, 'inbox-03-list');
    await item.click();
    await user.waitForURL(/\/app\/inbox\/\d+$/);
    await expect
      .poll(() => user.getByTestId('message-content').locator('strong').textContent())
      .toBe('tonight at 22:00');
    await h.shot(user, 'inbox-04-detail');
    await expect.poll(async () => badge.count()).toBe(0);
    await user.goto('/app/inbox/999999');
    await user.waitForURL((u) => u.pathname === '/app/inbox');
  });

  it('the administrator sees the read count and the reader in the edit drawer, and edits the title', async () => {
    await admin.reload();
    const row = admin.getByTestId('message-table').locator('tr', { hasText: 'Scheduled maintenance' });
    await expect.poll(async () => (await row.locator('td').allTextContents()).slice(4, 6)).toEqual(['1', '1']);
    const id = (await row.locator('td').first().textContent())!.trim();
    await admin.getByTestId(`message-edit-${id}`).click();
    await expect.poll(() => admin.getByTestId('message-recipient-table').textContent()).toContain('reader');
    // Id, creation time, recipients 1, read 1.
    const meta = admin.getByTestId('message-meta').locator('.ant-descriptions-item-content');
    await expect
      .poll(async () => {
        const cells = await meta.allTextContents();
        return [cells[0], cells[2], cells[3]];
      })
      .toEqual([id, '1', '1']);
    await h.shot(admin, 'inbox-05-edit-drawer');
    await admin.getByTestId('message-title').fill('Maintenance done');
    await admin.getByTestId('message-submit').click();
    await admin.getByTestId('message-table').locator('tr', { hasText: 'Maintenance done' }).waitFor();
  });
});
