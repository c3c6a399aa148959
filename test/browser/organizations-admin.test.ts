import fs from 'node:fs';
import type { Organization, OrgToken } from '@tollway/shared';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, setUpRoot, type Session } from './api-session.js';
import { animationsStill, chooseOption, clickWhenIdle, PAGE_ACTION_TIMEOUT_MS, type Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'oaroot', password: 'oa-root-pass-1' };
const ADMIN = { username: 'oaadmin', password: 'oa-admin-pass-1' };
const MEMBER = { username: 'oamember', password: 'oa-member-pass-1' };
const MEMBER_NAME = 'Mia Member';
const ORG_NAME = 'Globex Labs';
const MODEL = 'oa-model';
/** $0.10 a call: 50,000 quota at the default 500,000 per dollar. */
const PRICE_DOLLARS = 0.1;
const WALLET_CREDIT = 5_000_000;
/** The member's calls, by tag; root makes one call of its own (untagged). */
const MEMBER_TAGS = ['alpha', 'beta'];
const ROOT_CALLS = 1;
const ADMIN_ROLE = 10;
const DESKTOP = { width: 1366, height: 860 };
const PHONE = { width: 390, height: 844 };
const STEP_TIMEOUT_MS = 180_000;

async function newPage(h: Harness, viewport = DESKTOP, lang = 'en'): Promise<Page> {
  const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport, deviceScaleFactor: 1 });
  await context.addInitScript((l) => {
    if (!localStorage.getItem('i18nextLng')) localStorage.setItem('i18nextLng', l);
  }, lang);
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  return page;
}

async function signIn(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

/** One chat completion with `key` (and tags): its HTTP status. */
async function call(h: Harness, key: string, tags = ''): Promise<number> {
  const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(tags ? { 'x-tollway-tags': tags } : {}),
    },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

const sk = (key: string) => (key.startsWith('sk-') ? key : `sk-${key}`);

/**
 * Issue 38's console gaps: the system administrators' organizations page (an admin disables an organization and its
 * token is refused; only root switches the reseller permission; an admin opens the organization's console) and the
 * spend and logs pages' filters (a member's calls only, then one tag; the chart, table and CSV read the same query).
 */
describe('organizations: the admin page and the spend filters (Chromium)', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  let member: Session;
  let orgId = 0;
  let memberKey = '';
  const org = () => apiAs<Organization>(root, 'GET', `/api/org/${orgId}`);

  beforeAll(async () => {
    mock = await startMockUpstream();
    h = await startPrivateHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops', role: ADMIN_ROLE });
    await apiAs(root, 'POST', '/api/user/', { ...MEMBER, display_name: MEMBER_NAME });
    member = await loginSession(h.baseUrl, MEMBER);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: PRICE_DOLLARS }) });
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'oa-up', type: 1, key: 'oa-key', base_url: mock.url, models: MODEL, group: 'default' },
    });
    // Root's organization, a member who joined by invitation, the wallet credited, a token each.
    orgId = (await apiAs<Organization>(root, 'POST', '/api/org', { name: ORG_NAME })).id;
    const invitation = await apiAs<{ code: string }>(root, 'POST', `/api/org/${orgId}/invitations`, {
      role: 'member',
    });
    await apiAs(member, 'POST', '/api/org/invitation/accept', { code: invitation.code });
    const [code] = await apiAs<string[]>(root, 'POST', '/api/redemption/', {
      name: 'oa-credit',
      count: 1,
      quota: WALLET_CREDIT,
    });
    await apiAs(root, 'POST', `/api/org/${orgId}/redeem`, { key: code });
    const issue = (body: object) => apiAs<OrgToken>(root, 'POST', `/api/org/${orgId}/tokens`, body);
    memberKey = sk((await issue({ name: 'mia-key', member_id: member.id })).key);
    const rootKey = sk((await issue({ name: 'root-key' })).key);
    for (const tag of MEMBER_TAGS) expect(await call(h, memberKey, tag)).toBe(200);
    for (let i = 0; i < ROOT_CALLS; i++) expect(await call(h, rootKey)).toBe(200);
  }, STEP_TIMEOUT_MS);
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it(
    'the spend page filtered by a member shows only their calls, in the table, the chart and the CSV',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const page = await newPage(h);
      await signIn(page, ROOT);
      await page.goto(`/app/org/${orgId}/spend`);
      const memberRow = page.getByTestId(`spend-row-${member.id}`);
      const rootRow = page.getByTestId(`spend-row-${root.id}`);
      await memberRow.waitFor();
      await expect.poll(() => page.locator('[data-testid^="spend-row-"]').count()).toBe(2);
      expect(await rootRow.count()).toBe(1);

      await chooseOption(page, page.getByTestId('spend-filter-member'), MEMBER_NAME);
      await expect.poll(() => rootRow.count()).toBe(0);
      expect(await page.locator('[data-testid^="spend-row-"]').count()).toBe(1);
      expect(await memberRow.textContent()).toContain('$0.20');
      await expect.poll(() => page.getByTestId('spend-total').textContent()).toContain('$0.20');
      expect(await page.getByTestId('spend-chart').locator('canvas').count()).toBeGreaterThan(0);
      await animationsStill(page);
      await h.shot(page, 'org-admin-01-spend-member-filter');

      // The export downloads the same calls: the member's two.
      const download = page.waitForEvent('download');
      await page.getByTestId('spend-export').click();
      const csv = fs
        .readFileSync((await (await download).path())!, 'utf8')
        .trim()
        .split('\r\n');
      expect(csv).toHaveLength(1 + MEMBER_TAGS.length);
      for (const line of csv.slice(1)) expect(line).toContain(MEMBER.username);

      // A typed tag narrows it further (applied on Enter); by model, one row of one call.
      await page.getByTestId('spend-filter-tag').fill(MEMBER_TAGS[0]!);
      await page.getByTestId('spend-filter-tag').press('Enter');
      await chooseOption(page, page.getByTestId('spend-group-by'), 'Model');
      const modelRow = page.getByTestId(`spend-row-${MODEL}`);
      await expect.poll(() => modelRow.textContent()).toContain('$0.10');
      expect(await page.locator('[data-testid^="spend-row-"]').count()).toBe(1);
      await animationsStill(page);
      await h.shot(page, 'org-admin-02-spend-tag-filter');

      // The logs page has the same filters.
      await page.goto(`/app/org/${orgId}/logs`);
      const logRows = page.locator('[data-testid^="org-log-row-"]');
      // A loaded machine may take longer than a poll to open a page (its chunks, the organization, the rows).
      await logRows.first().waitFor();
      await expect.poll(() => logRows.count()).toBe(MEMBER_TAGS.length + ROOT_CALLS);
      await chooseOption(page, page.getByTestId('spend-filter-member'), MEMBER_NAME);
      await expect.poll(() => logRows.count()).toBe(MEMBER_TAGS.length);
      for (const text of await logRows.allTextContents()) expect(text).toContain(MEMBER.username);
      await page.getByTestId('spend-filter-tag').fill(MEMBER_TAGS[1]!);
      await page.getByTestId('spend-filter-tag').press('Enter');
      await expect.poll(() => logRows.count()).toBe(1);
      expect(await logRows.first().textContent()).toContain(MEMBER_TAGS[1]);
      await h.shot(page, 'org-admin-03-logs-filters');
      await page.context().close();
    },
  );

  it(
    'an admin disables the organization from the page and its token is refused; enables it again; opens its console',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const page = await newPage(h);
      await signIn(page, ADMIN);
      await page.goto('/admin/organizations');
      const row = page.getByTestId(`org-admin-row-${orgId}`);
      await row.waitFor();
      await expect.poll(() => row.textContent()).toContain(ORG_NAME);
      const text = (await row.textContent())!;
      // The wallet after the three calls of $0.10, and what they used.
      expect(await row.locator('td[data-label="Wallet"]').textContent()).toBe('$9.70');
      expect(await row.locator('td[data-label="Used"]').textContent()).toBe('$0.30');
      expect(text).toContain('Enabled');
      expect(await row.locator('td[data-label="Members"]').textContent()).toBe('2');
      // Not root: the reseller permission is shown, not switched.
      expect(await page.getByTestId(`org-admin-reseller-${orgId}`).count()).toBe(0);
      expect(await page.getByTestId(`org-admin-reseller-tag-${orgId}`).textContent()).toBe('No');
      await h.shot(page, 'org-admin-04-list-admin');

      await page.getByTestId(`org-admin-toggle-${orgId}`).click();
      await clickWhenIdle(page.getByTestId(`org-admin-status-confirm-${orgId}`));
      const status = page.getByTestId(`org-admin-status-${orgId}`);
      await expect.poll(() => status.getAttribute('data-status')).toBe('2');
      expect((await org()).status).toBe(2);
      expect(await call(h, memberKey)).toBe(403);
      await h.shot(page, 'org-admin-05-disabled');

      await page.getByTestId(`org-admin-toggle-${orgId}`).click();
      await clickWhenIdle(page.getByTestId(`org-admin-status-confirm-${orgId}`));
      await expect.poll(() => status.getAttribute('data-status')).toBe('1');
      expect(await call(h, memberKey)).toBe(200);

      // The admin opens the organization's console and acts as its owner.
      await page.getByTestId(`org-admin-open-${orgId}`).click();
      await page.waitForURL(`**/app/org/${orgId}/overview`);
      await expect.poll(() => page.getByTestId('org-page').getAttribute('data-org-role')).toBe('owner');
      await expect.poll(() => page.getByTestId('org-switcher').textContent()).toContain(ORG_NAME);
      await page.context().close();
    },
  );

  it('root switches the reseller permission on, and off after a confirm', { timeout: STEP_TIMEOUT_MS }, async () => {
    const page = await newPage(h);
    await signIn(page, ROOT);
    await page.goto('/admin/organizations');
    const toggle = page.getByTestId(`org-admin-reseller-${orgId}`);
    await toggle.waitFor();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    await clickWhenIdle(toggle);
    await expect.poll(async () => (await org()).reseller).toBe(true);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => page.getByTestId(`org-admin-markup-${orgId}`).textContent()).toBe('Markup 0%');
    // The owner sets a markup; the page shows it.
    await apiAs(root, 'PUT', `/api/org/${orgId}`, { markup_bp: 1250 });
    await page.getByTestId('org-admin-refresh').click();
    await expect.poll(() => page.getByTestId(`org-admin-markup-${orgId}`).textContent()).toBe('Markup 12.5%');
    await animationsStill(page);
    await h.shot(page, 'org-admin-06-reseller-root');

    await clickWhenIdle(toggle);
    await clickWhenIdle(page.getByTestId(`org-admin-reseller-off-${orgId}`));
    await expect.poll(async () => (await org()).reseller).toBe(false);
    expect((await org()).markup_bp).toBe(0);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    await page.context().close();
  });

  it('the page on a phone (cards) and in Chinese', { timeout: STEP_TIMEOUT_MS }, async () => {
    const page = await newPage(h, PHONE, 'zh');
    await signIn(page, ADMIN);
    await page.goto('/admin/organizations');
    const row = page.getByTestId(`org-admin-row-${orgId}`);
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain(ORG_NAME);
    expect(await page.locator('h1').textContent()).toBe('组织');
    expect(await page.getByTestId(`org-admin-toggle-${orgId}`).isVisible()).toBe(true);
    expect(await page.getByTestId(`org-admin-open-${orgId}`).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await h.shot(page, 'org-admin-07-phone-zh');
    await page.getByTestId('sidebar-toggle').click();
    const drawer = page.locator('.tw-mobile-drawer');
    await expect.poll(() => drawer.textContent()).toContain('组织');
    expect(await drawer.locator('li[data-menu-id$="/admin/organizations"]').count()).toBe(1);
    await page.context().close();
  });
});
