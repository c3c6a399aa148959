import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillSettled, login, logout, motionSettled, pageApi, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const USER = { username: 'alice', password: 'alice-pass-123' };

/** Issue 2 in a real browser: setup, root login, user management, server-side refusal, settings, theme, language. */
describe('console foundation in Chromium', () => {
  let h: Harness;
  let page: Page;
  beforeAll(async () => {
    h = await startHarness();
    ({ page } = await h.newPage());
  });
  afterAll(async () => h?.close());

  it('sends every page to /setup until setup is done, then completes setup', async () => {
    await page.goto('/app/me');
    await page.waitForURL('**/setup');
    await page.getByTestId('setup-form').waitFor();
    await expect.poll(() => page.getByTestId('setup-db-type').textContent()).toContain('sqlite');
    await h.shot(page, '01-setup');
    await page.getByTestId('setup-username').fill(ROOT.username);
    await page.getByTestId('setup-password').fill(ROOT.password);
    await page.getByTestId('setup-confirm').fill('mismatch-123');
    await page.getByTestId('setup-submit').click();
    await page
      .getByText(/two passwords do not match|两次输入的密码不一致/)
      .first()
      .waitFor();
    await page.getByTestId('setup-confirm').fill(ROOT.password);
    await page.getByTestId('setup-submit').click();
    await page.waitForURL('**/login**');
    const setup = await (await fetch(`${h.baseUrl}/api/setup`)).json();
    expect(setup.data).toMatchObject({ status: true, root_init: true });
  });

  it('logs in as root and shows the shell with the admin section', async () => {
    await login(page, ROOT);
    expect(new URL(page.url()).pathname).toBe('/app/tokens');
    await page.getByTestId('sidebar').waitFor();
    await expect.poll(() => page.getByTestId('sidebar').textContent()).toMatch(/用户管理|Users/);
    await h.shot(page, '02-console-root');
  });

  it('creates a user in user management', async () => {
    await page.goto('/admin/users');
    await page.getByTestId('users-add').click();
    await fillSettled(page.getByTestId('user-form-username').last(), USER.username);
    await fillSettled(page.getByTestId('user-form-display-name').last(), 'Alice');
    await fillSettled(page.getByTestId('user-form-password').last(), USER.password);
    await h.shot(page, '03-users-add-drawer');
    await page.getByTestId('user-form-submit').last().click();
    await page.getByRole('cell', { name: USER.username, exact: false }).first().waitFor();
    await h.shot(page, '04-users-list');
    const rows = await page.locator('[data-testid^="user-row-"]').count();
    expect(rows).toBe(2);
  });

  it('adds and removes balance from the row action as changes (add_quota), each logged on the user', async () => {
    const found = await pageApi<{ items: { id: number; username: string }[] }>(
      page,
      'GET',
      `/api/user/search?keyword=${USER.username}`,
    );
    const id = found.data!.items.find((u) => u.username === USER.username)!.id;
    const quotaOf = async () => (await pageApi<{ quota: number }>(page, 'GET', `/api/user/${id}`)).data!.quota;
    const change = async (delta: number) => {
      await page.getByTestId(`user-action-quota-${id}`).click();
      await motionSettled(page); // until it has opened: a click while it still moves can miss
      await page.getByTestId('add-quota-input').fill(String(delta));
      await page.getByTestId('add-quota-ok').click();
      await page.getByTestId('add-quota-input').waitFor({ state: 'detached' });
    };
    const start = await quotaOf();
    await change(500000);
    await expect.poll(quotaOf).toBe(start + 500000);
    await change(-200000);
    await expect.poll(quotaOf).toBe(start + 300000);
    await h.shot(page, '04b-users-quota-changed');
    const logs = await pageApi<{ items: { content: string; quota: number }[] }>(
      page,
      'GET',
      `/api/log/?type=3&username=${USER.username}`,
    );
    expect(logs.data!.items.map((l) => [l.content, l.quota])).toEqual([
      [`administrator ${ROOT.username} subtracted 200000 quota`, -200000],
      [`administrator ${ROOT.username} added 500000 quota`, 500000],
    ]);
  });

  it('changes SystemName in operation settings and sees it in the shell', async () => {
    await page.goto('/admin/settings?tab=other');
    const input = page.getByTestId('option-SystemName');
    await input.waitFor();
    await input.fill('Acme Gateway');
    const section = page.locator('[data-testid^="settings-section-"]', { has: input });
    await section.locator('[data-testid^="settings-save-"]').click();
    await expect.poll(() => page.getByTestId('system-name').textContent()).toContain('Acme Gateway');
    await h.shot(page, '05-settings-other');
    await page.reload();
    await expect.poll(() => page.getByTestId('system-name').textContent()).toContain('Acme Gateway');
    expect(await page.title()).toBe('Acme Gateway');
  });

  it("the header's buttons stay put while its late parts (inbox bell, user menu) load", async () => {
    // The two parts' code is held back for a moment: the theme button must sit where it will stay, so a click
    // aimed at it while they load cannot land on another button.
    const held = /\/assets\/(InboxBell|UserMenu)-[^/]+\.js$/;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await page.route(held, async (route) => {
      await gate;
      await route.continue();
    });
    try {
      await page.goto('/admin/users');
      const toggle = page.getByTestId('theme-toggle');
      await toggle.waitFor();
      await expect(page.getByTestId('user-menu').count()).resolves.toBe(0);
      const before = await toggle.boundingBox();
      release();
      await page.getByTestId('user-menu').waitFor();
      await page.getByTestId('inbox-bell').waitFor();
      const after = await toggle.boundingBox();
      expect(Math.abs(after!.x - before!.x)).toBeLessThanOrEqual(2);
      expect(Math.abs(after!.y - before!.y)).toBeLessThanOrEqual(2);
    } finally {
      release();
      await page.unroute(held);
    }
  });

  it('switches theme and language, both remembered after reload', async () => {
    await page.goto('/admin/users');
    await page.getByTestId('theme-toggle').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.getByTestId('lang-menu').click();
    await page.getByTestId('lang-en').click();
    await expect.poll(() => page.getByTestId('sidebar').textContent()).toContain('System settings');
    await h.shot(page, '06-users-dark-en');
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await expect.poll(() => page.getByTestId('sidebar').textContent()).toContain('System settings');
    await page.goto('/app/me');
    await page.getByTestId('me-page').waitFor();
    await h.shot(page, '07-me-dark-en');
    await page.getByTestId('theme-toggle').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
  });

  it('logs in as the new user: no admin section, and the server refuses admin calls', async () => {
    await logout(page);
    await login(page, USER);
    await expect.poll(() => page.getByTestId('sidebar').textContent()).not.toMatch(/系统设置|System settings|Users/);
    await page.goto('/app/me');
    await page.getByTestId('me-page').waitFor();
    await expect.poll(() => page.getByTestId('me-page').textContent()).toContain(USER.username);
    // Editing the display name goes through the server and shows at once.
    await page.getByTestId('me-edit-name').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-name-input').fill('Alice Liddell');
    await page.getByTestId('me-name-save').click();
    await expect.poll(() => page.getByTestId('me-display-name').textContent()).toContain('Alice Liddell');
    await h.shot(page, '08-me-user');
    // Visiting the admin page directly: the 403 page, once, and no refusal toast (the page makes no admin calls).
    await page.goto('/admin/users');
    await page.getByTestId('forbidden').waitFor();
    expect(await page.getByTestId('forbidden').count()).toBe(1);
    await page.waitForLoadState('networkidle');
    expect(await page.locator('.ant-message-notice').count()).toBe(0);
    await h.shot(page, '09-admin-refused-for-user');
    // The server refuses the admin call all the same.
    const users = await page.evaluate(async () => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}');
      const r = await fetch('/api/user/', { headers: { 'New-Api-User': String(user.id) } });
      return r.json();
    });
    expect(users.success).toBe(false);
    const direct = await page.evaluate(async () => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}');
      const r = await fetch('/api/option/', { headers: { 'New-Api-User': String(user.id) } });
      return { status: r.status, body: await r.json() };
    });
    expect(direct.status).toBe(403);
    expect(direct.body.success).toBe(false);
  });

  it('expired sessions go to login with expired=true and returnTo', async () => {
    await page.context().clearCookies();
    await page.goto('/app/me');
    await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('expired') === 'true');
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/app/me');
    await page.getByTestId('login-expired').waitFor();
    await h.shot(page, '10-login-expired');
  });

  it('renders home and not-found, and the mobile layout at 390 px', async () => {
    await page.goto('/');
    await page.getByTestId('home-hero').waitFor();
    await h.shot(page, '11-home');
    await page.goto('/no/such/page');
    await page.getByTestId('not-found').waitFor();
    const { page: mobile } = await h.newPage({ mobile: true });
    await login(mobile, ROOT);
    await mobile.getByTestId('sidebar-toggle').click();
    await mobile.getByTestId('sidebar').last().waitFor();
    await mobile.waitForTimeout(500); // let the drawer finish sliding in
    await h.shot(mobile, '12-mobile-sidebar');
  });
});
