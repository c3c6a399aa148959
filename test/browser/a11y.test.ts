import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { axeFindings, describeFindings, settle, type AxeFinding } from './axe.js';
import { ROOT, USER, seedTables, seedUsers, signIn, startPrivateHarness } from './tables-fixture.js';
import { PAGE_ACTION_TIMEOUT_MS, SCREENSHOTS, type Harness } from './harness.js';

const ADMIN = { username: 'a11yadmin', password: 'a11y-admin-pass-1' };
const THEMES = ['light', 'dark'] as const;
type Theme = (typeof THEMES)[number];

/** Pages without a login (the setup page is checked before setup). */
const PUBLIC_PAGES = ['/', '/login', '/register', '/reset', '/about', '/pricing', '/docs'];
/** A user's pages; the sidebar has no admin section. */
const USER_PAGES = [
  '/app/tokens',
  '/app/logs/api-usage',
  '/app/logs/drawing',
  '/app/logs/tasks',
  '/app/dashboard',
  '/app/inbox',
  '/app/wallet',
  '/app/me',
  '/playground',
];
/** An administrator's pages (and a user page, whose sidebar now has the admin section). */
const ADMIN_PAGES = [
  '/app/tokens',
  '/admin/channels',
  '/admin/coupons',
  '/admin/mcp',
  '/admin/messages',
  '/admin/users',
  '/admin/organizations',
  '/admin/settings',
];
/** The root's own page, and the sidebar with the audit entry. */
const ROOT_PAGES = ['/admin/audit', '/app/wallet'];
/** Pages photographed in both themes (test-artifacts/screenshots) for a human look. */
const PHOTOGRAPHED = new Set(['/login', '/app/tokens', '/admin/settings', '/playground', '/admin/channels']);
/** Issue 34's window: its sidebar must show every section without scrolling. */
const LAPTOP = { width: 1440, height: 900 };
const CHAT_LINKS = 8;
const DESKTOP = { width: 1366, height: 860 };
const PHONE = { width: 390, height: 844 };

/** A test per role runs a dozen pages twice: more than the project's default two minutes on a loaded machine. */
const ROLE_TIMEOUT_MS = 300_000;

/**
 * The organization pages (issue 38), as their owner (every control shown), in the light theme only: this file is the
 * slowest of the browser tier, and the pages use the same antd parts as the pages checked in both themes.
 */
const ORG_PAGES = ['overview', 'members', 'teams', 'tokens', 'budgets', 'spend', 'logs'];
const ORG_THEMES = ['light'] as const;

/** Checks each page in both themes (or `themes`); every critical or serious finding. */
async function checkPages(
  h: Harness,
  page: Page,
  who: string,
  paths: string[],
  themes: readonly Theme[] = THEMES,
): Promise<AxeFinding[]> {
  const found: AxeFinding[] = [];
  for (const theme of themes) {
    await page.evaluate((t) => localStorage.setItem('theme-mode', t), theme);
    for (const path of paths) {
      await page.goto(path);
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      found.push(...(await axeFindings(page, `${who} ${theme} ${path}`)));
      if (PHOTOGRAPHED.has(path)) await h.shot(page, `a11y-${who}-${theme}${path.replaceAll('/', '-')}`);
    }
  }
  return found;
}

/**
 * A page whose context lets the test inject axe-core (the console's Content-Security-Policy allows scripts from the
 * site only); otherwise as the harness's.
 */
async function newPage(h: Harness, viewport = DESKTOP): Promise<Page> {
  const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport, deviceScaleFactor: 1, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  return page;
}

/** Opens a context for the role, signed in through the login form (the visitor's context stays signed out). */
async function pageOf(h: Harness, who?: { username: string; password: string }): Promise<Page> {
  const page = await newPage(h);
  await page.goto('/about');
  await settle(page);
  if (who) await signIn(page, who);
  return page;
}

const setTheme = (page: Page, theme: Theme) => page.evaluate((t) => localStorage.setItem('theme-mode', t), theme);

/**
 * Issue 34: axe-core over every console page, light and dark, as a visitor, user, administrator and root: no
 * critical or serious violation (contrast, names, labels). Also the shell's layout findings: the phone header on the
 * setup page, and the sidebar at 1440×900 with chat links.
 */
describe('accessibility of every console page (axe-core)', () => {
  let h: Harness;
  let root: Session;
  let mock: MockUpstream | undefined;
  beforeAll(async () => {
    h = await startPrivateHarness();
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('the setup page, in both themes; on a phone its header has no menu button', async () => {
    const page = await newPage(h);
    const found: AxeFinding[] = [];
    for (const theme of THEMES) {
      await page.goto('/setup');
      await setTheme(page, theme);
      await page.reload();
      await page.getByTestId('setup-form').waitFor();
      found.push(...(await axeFindings(page, `visitor ${theme} /setup`)));
    }
    await page.context().close();
    const phone = await newPage(h, PHONE);
    await phone.goto('/setup');
    await phone.getByTestId('setup-form').waitFor();
    await settle(phone);
    expect(await phone.getByTestId('sidebar-toggle').count()).toBe(0);
    await h.shot(phone, 'a11y-phone-setup');
    await phone.context().close();

    ({ root } = await seedUsers(h));
    mock = await seedTables(h, root);
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops', role: 10 });
    const links = Array.from({ length: CHAT_LINKS }, (_, i) => ({ [`Chat ${i + 1}`]: `${h.baseUrl}/about?key={key}` }));
    for (const [key, value] of [
      ['DataExportEnabled', 'true'],
      ['DrawingEnabled', 'true'],
      ['TaskEnabled', 'true'],
      ['CheckInEnabled', 'true'],
      ['Chats', JSON.stringify(links)],
    ])
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    for (const who of [USER, ADMIN]) {
      await apiAs(await loginSession(h.baseUrl, who), 'POST', '/api/token/', { name: `${who.username}-key` });
    }
    // The phone header elsewhere keeps its menu button.
    const later = await newPage(h, PHONE);
    await later.goto('/about');
    await later.getByTestId('sidebar-toggle').waitFor();
    await later.context().close();
    expect(describeFindings(found)).toEqual([]);
  });

  it('public pages as a visitor', { timeout: ROLE_TIMEOUT_MS }, async () => {
    const page = await pageOf(h);
    expect(describeFindings(await checkPages(h, page, 'visitor', PUBLIC_PAGES))).toEqual([]);
    await page.context().close();
  });

  it('a user’s pages', { timeout: ROLE_TIMEOUT_MS }, async () => {
    const page = await pageOf(h, USER);
    expect(describeFindings(await checkPages(h, page, 'user', USER_PAGES))).toEqual([]);
    await page.context().close();
  });

  it('an organization owner’s organization pages (light theme)', { timeout: ROLE_TIMEOUT_MS }, async () => {
    const owner = await loginSession(h.baseUrl, USER);
    const org = await apiAs<{ id: number }>(owner, 'POST', '/api/org', { name: 'A11y Org' });
    const team = await apiAs<{ id: number }>(owner, 'POST', `/api/org/${org.id}/teams`, { name: 'a11y-team' });
    await apiAs(owner, 'PUT', `/api/org/${org.id}/teams/${team.id}/members/${owner.id}`);
    await apiAs(owner, 'POST', `/api/org/${org.id}/tokens`, { name: 'a11y-org-key', team_id: team.id });
    await apiAs(owner, 'POST', `/api/org/${org.id}/budgets`, {
      level: 'team',
      target_id: team.id,
      period: 'month',
      limit_quota: 1_000_000,
      alert_percents: [50, 80],
    });
    const page = await pageOf(h, USER);
    const paths = [...ORG_PAGES.map((p) => `/app/org/${org.id}/${p}`), '/app/org/invite'];
    expect(describeFindings(await checkPages(h, page, 'org-owner', paths, ORG_THEMES))).toEqual([]);
    await page.context().close();
  });

  it('a confirmation’s danger button (deleting a token), in both themes', async () => {
    const page = await pageOf(h, USER);
    const found: AxeFinding[] = [];
    for (const theme of THEMES) {
      await setTheme(page, theme);
      await page.goto('/app/tokens');
      await page.locator('[data-testid^="token-delete-"]:not([data-testid*="-confirm-"])').first().click();
      await page.locator('[data-testid^="token-delete-confirm-"]').waitFor();
      found.push(...(await axeFindings(page, `user ${theme} /app/tokens, delete confirmation`)));
      await h.shot(page, `a11y-user-${theme}-confirm`);
      await page.keyboard.press('Escape');
    }
    await page.context().close();
    expect(describeFindings(found)).toEqual([]);
  });

  it('an administrator’s pages', { timeout: ROLE_TIMEOUT_MS }, async () => {
    const page = await pageOf(h, ADMIN);
    expect(describeFindings(await checkPages(h, page, 'admin', ADMIN_PAGES))).toEqual([]);
    await page.context().close();
  });

  it(
    'root’s pages; at 1440×900 with chat links the sidebar shows Wallet and Personal settings',
    { timeout: ROLE_TIMEOUT_MS },
    async () => {
      const page = await pageOf(h, ROOT);
      expect(describeFindings(await checkPages(h, page, 'root', ROOT_PAGES))).toEqual([]);
      await page.setViewportSize(LAPTOP);
      await setTheme(page, 'light');
      await page.goto('/app/tokens');
      const sidebar = page.getByTestId('sidebar');
      await expect.poll(() => sidebar.textContent()).toMatch(/Chat|聊天/);
      // Above the collapse button's bar, which covers the bottom of the menu's scrolling area.
      const footer = await sidebar.locator('.tw-sider-footer').boundingBox();
      expect(footer).not.toBeNull();
      for (const key of ['/app/wallet', '/app/me']) {
        const item = sidebar.locator(`li[data-menu-id$="${key}"]`);
        const box = await item.boundingBox();
        expect(box, key).not.toBeNull();
        expect(box!.y + box!.height, key).toBeLessThanOrEqual(Math.min(LAPTOP.height, footer!.y));
      }
      await page.screenshot({ path: path.join(SCREENSHOTS, 'a11y-root-1440x900.png') });
      await page.context().close();
    },
  );
});
