import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession } from './api-session.js';
import { login, motionSettled, pageApi, type Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const ADMIN = { username: 'opsadmin', password: 'admin-pass-123' };
const TARGET = { username: 'customer', password: 'customer-pass-123' };
/** An option value that would run script if the console rendered the detail as HTML. */
const PAYLOAD = '<img src=x onerror="window.__auditPwned=1">notice';

/** The audit log in Chromium: root sees root's and an admin's actions with their actors; an admin sees no entry and is refused. */
describe('audit log in Chromium', () => {
  let h: Harness;
  let root: Page;
  let admin: Page;
  let targetId: number;
  beforeAll(async () => {
    // A private copy of the console: a rebuild during the run must not pull its chunks away.
    h = await startPrivateHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    const rootApi = await loginSession(h.baseUrl, ROOT);
    await apiAs(rootApi, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops', role: 10 });
    targetId = (await apiAs<{ id: number }>(rootApi, 'POST', '/api/user/', { ...TARGET, display_name: 'Customer' })).id;
    ({ page: root } = await h.newPage());
    ({ page: admin } = await h.newPage());
  });
  afterAll(async () => h?.close());

  it('root changes an option and an admin edits a user from the console', async () => {
    await login(root, ROOT);
    expect((await pageApi(root, 'PUT', '/api/option/', { key: 'Notice', value: PAYLOAD })).success).toBe(true);
    await login(admin, ADMIN);
    await admin.goto(`/user/edit/${targetId}`);
    const name = admin.getByTestId('user-form-display-name');
    await expect.poll(() => name.inputValue()).toBe('Customer');
    await name.fill('Customer (verified)');
    await admin.getByTestId('user-form-submit').click();
    await expect
      .poll(
        async () => (await pageApi<{ display_name: string }>(admin, 'GET', `/api/user/${targetId}`)).data?.display_name,
      )
      .toBe('Customer (verified)');
  });

  it('root finds the audit log in the admin section and sees both rows with the right actor', async () => {
    await root.goto('/app/tokens');
    await root.getByRole('menuitem', { name: /审计日志|Audit log/ }).click();
    await root.waitForURL('**/admin/audit');
    const table = root.getByTestId('audit-table');
    // Rows by their stored action code (the cell shows its words; the code is its data-code).
    const byCode = (code: string) => table.locator('tr', { has: root.locator(`[data-code="${code}"]`) });
    const optionRow = byCode('option.update').first();
    const userRow = byCode('user.update').first();
    await optionRow.waitFor();
    await userRow.waitFor();
    expect(await optionRow.getByTestId('audit-actor').textContent()).toContain(ROOT.username);
    expect(await optionRow.textContent()).toMatch(/设置项 #Notice|Setting #Notice/);
    expect(await userRow.getByTestId('audit-actor').textContent()).toContain(ADMIN.username);
    expect(await userRow.textContent()).toMatch(new RegExp(`(用户|User) #${targetId}`));
    expect(await userRow.textContent()).toMatch(/127\.0\.0\.1/);
    await h.shot(root, 'audit-01-list');

    // The detail is shown as JSON text: the stored markup is not rendered and runs nothing.
    await optionRow.getByTestId('audit-view').click();
    const json = root.getByTestId('audit-detail-json');
    await expect.poll(() => json.textContent()).toContain('"option": "Notice"');
    expect(await json.textContent()).toContain(PAYLOAD.replace(/"/g, '\\"'));
    expect(await root.getByTestId('audit-detail').locator('img').count()).toBe(0);
    expect(await root.evaluate(() => (window as unknown as { __auditPwned?: number }).__auditPwned)).toBeUndefined();
    // The dialog's opening animation ends before the screenshot.
    await motionSettled(root);
    await h.shot(root, 'audit-02-detail');
    await root.keyboard.press('Escape');

    // Filtering by actor leaves only the admin's rows.
    await root.getByTestId('audit-filter-actor').fill(ADMIN.username);
    await root.getByTestId('audit-search').click();
    await expect
      .poll(async () =>
        (await table.getByTestId('audit-actor').allTextContents()).every((t) => t.includes(ADMIN.username)),
      )
      .toBe(true);
    expect(await byCode('option.update').count()).toBe(0);
    await byCode('user.update').first().waitFor();
    await h.shot(root, 'audit-03-filtered');
  });

  it('an admin has no audit entry, sees the 403 page at its address, and the API refuses them', async () => {
    await admin.goto('/app/tokens');
    await admin.getByRole('menuitem', { name: /用户管理|Users/ }).waitFor();
    expect(await admin.getByRole('menuitem', { name: /审计日志|Audit log/ }).count()).toBe(0);
    await h.shot(admin, 'audit-04-admin-sidebar');
    await admin.goto('/admin/audit');
    // The shared 403 page, once, without a toast; the address stays and the page's own calls never start.
    await admin.getByTestId('forbidden').waitFor();
    expect(new URL(admin.url()).pathname).toBe('/admin/audit');
    expect(await admin.getByTestId('audit-table').count()).toBe(0);
    expect(await admin.locator('.ant-message-notice').count()).toBe(0);
    await h.shot(admin, 'audit-04b-admin-forbidden');
    const res = await pageApi(admin, 'GET', '/api/audit/');
    expect(res.success).toBe(false);
    expect(res.message).toMatch(/no permission/);
    // The refused attempt itself is in the log, as root sees.
    await root.getByTestId('audit-filter-actor').fill('');
    await root.getByTestId('audit-search').click();
    const denied = root
      .getByTestId('audit-table')
      .locator('tr', { has: root.locator('[data-code="audit.read"]') })
      .first();
    await denied.waitFor();
    expect(await denied.getByTestId('audit-actor').textContent()).toContain(ADMIN.username);
    expect(await denied.textContent()).toMatch(/被拒绝|Refused/);
    // The same page in English.
    await root.evaluate(() => localStorage.setItem('i18nextLng', 'en'));
    await root.reload();
    await root.getByRole('heading', { name: 'Audit log' }).waitFor();
    await root.getByTestId('audit-table').locator('tr', { hasText: 'Refused' }).first().waitFor();
    await h.shot(root, 'audit-05-english');
  });
});
