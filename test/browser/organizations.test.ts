import type { Budget, Organization, OrgTeam, OrgToken } from '@tollway/shared';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, setUpRoot, type Session } from './api-session.js';
import { animationsStill, clickWhenIdle, PAGE_ACTION_TIMEOUT_MS, type Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'orgroot', password: 'org-root-pass-1' };
const MEMBER = { username: 'orgmember', password: 'org-member-pass-1' };
const ORG_NAME = 'Acme Research';
const TEAM_NAME = 'platform';
const MODEL = 'org-model';
/** A fixed price per call: $0.10 = 50000 quota at the default 500000 per dollar. */
const PRICE_DOLLARS = 0.1;
const CALL_QUOTA = 50_000;
/** The team's hard daily budget: exactly two calls. */
const CALLS_IN_BUDGET = 2;
const BUDGET_QUOTA = CALLS_IN_BUDGET * CALL_QUOTA;
/** What the redemption code credits the organization's wallet (far more than the budget). */
const WALLET_CREDIT = 5_000_000;
const DESKTOP = { width: 1366, height: 860 };
const PHONE = { width: 390, height: 844 };
/** The whole story runs on one server in order; a loaded machine takes its time. */
const STEP_TIMEOUT_MS = 180_000;

/** An English page of the console at `viewport`, signed out. */
async function newPage(h: Harness, viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
  const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport, deviceScaleFactor: 1 });
  // English unless the test chose otherwise.
  await context.addInitScript(() => {
    if (!localStorage.getItem('i18nextLng')) localStorage.setItem('i18nextLng', 'en');
  });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  return page;
}

/** Fills the login form the page shows (keeping its returnTo) and waits until the app has left /login. */
async function submitLogin(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

async function signIn(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, who);
}

/** Opens an antd Select and picks the option showing `text`. */
async function pick(page: Page, select: Locator, text: string | RegExp): Promise<void> {
  // Some of these selects act and clear (add a member): chooseOption's check of the shown value does not apply.
  const open = page.locator('.ant-select-dropdown:visible');
  await open.first().waitFor({ state: 'hidden' });
  await select.click();
  await open.locator('.ant-select-item-option').filter({ hasText: text }).first().click();
}

/** One chat completion with `key`: its status and body. */
async function call(h: Harness, key: string): Promise<{ status: number; body: { error?: { code?: string } } }> {
  const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code?: string } } };
}

/**
 * Issue 38 in the console: root creates an organization from the header's switcher, credits its wallet with a code,
 * invites a second user by link; the user signs in from the link, accepts and switches organizations in the header;
 * the admin creates a team, adds the member, issues the member a team token and a hard daily team budget; relay
 * calls with that token are served until the budget is used and then refused (budget_exceeded); the budgets page
 * shows it used up and the spend page charts the member's spend. Desktop and phone screenshots.
 */
describe('organizations in the console (Chromium)', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  let memberSession: Session;
  let admin: Page;
  let member: Page;
  let orgId = 0;
  let inviteLink = '';
  let teamId = 0;
  let tokenKey = '';
  const org = () => apiAs<Organization>(root, 'GET', `/api/org/${orgId}`);

  beforeAll(async () => {
    mock = await startMockUpstream();
    h = await startPrivateHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...MEMBER, display_name: 'Mia Member' });
    memberSession = await loginSession(h.baseUrl, MEMBER);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: PRICE_DOLLARS }) });
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'org-up', type: 1, key: 'org-key', base_url: mock.url, models: MODEL, group: 'default' },
    });
    admin = await newPage(h);
    await signIn(admin, ROOT);
  }, STEP_TIMEOUT_MS);
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it(
    'root creates an organization from the header switcher and credits its wallet with a code',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await admin.goto('/app/tokens');
      await admin.getByTestId('org-switcher').click();
      await admin.getByTestId('org-switcher-create').click();
      await admin.getByTestId('org-create-name').fill(ORG_NAME);
      await clickWhenIdle(admin.getByTestId('org-create-ok'));
      await admin.waitForURL(/\/app\/org\/\d+\/overview$/);
      orgId = Number(/\/app\/org\/(\d+)\//.exec(admin.url())![1]);
      expect(orgId).toBeGreaterThan(0);
      await expect.poll(() => admin.getByTestId('org-switcher').textContent()).toContain(ORG_NAME);
      // The sidebar holds the organization's pages.
      const sidebar = admin.getByTestId('sidebar');
      await expect.poll(() => sidebar.textContent()).toContain(`Org: ${ORG_NAME}`);
      for (const p of ['members', 'teams', 'tokens', 'budgets', 'spend', 'logs'])
        expect(await sidebar.locator(`li[data-menu-id$="/app/org/${orgId}/${p}"]`).count(), p).toBe(1);

      const [code] = await apiAs<string[]>(root, 'POST', '/api/redemption/', {
        name: 'org-credit',
        count: 1,
        quota: WALLET_CREDIT,
      });
      await admin.getByTestId('org-redeem-input').fill(code!);
      await clickWhenIdle(admin.getByTestId('org-redeem-button'));
      await expect.poll(async () => (await org()).quota).toBe(WALLET_CREDIT);
      await expect.poll(() => admin.getByTestId('org-wallet-quota').textContent()).toMatch(/10/);
      await h.shot(admin, 'org-01-overview-desktop');
    },
  );

  it('invites the second user by link', { timeout: STEP_TIMEOUT_MS }, async () => {
    await admin.goto(`/app/org/${orgId}/members`);
    await admin.locator('[data-testid^="member-row-"]').first().waitFor();
    await admin.getByTestId('org-invite').click();
    await clickWhenIdle(admin.getByTestId('invite-create'));
    const link = admin.getByTestId('invite-link');
    await link.waitFor();
    inviteLink = (await link.textContent())!.trim();
    expect(inviteLink).toMatch(/\/app\/org\/invite\?code=\S{16,}$/);
    await h.shot(admin, 'org-02-invite-link');
    await admin.getByTestId('invite-done').click();
    // The pending invitation is listed.
    await expect.poll(() => admin.locator('[data-testid^="invitation-row-"]').count()).toBe(1);
  });

  it(
    'the second user opens the link signed out, signs in, comes back and accepts',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      member = await newPage(h);
      const url = new URL(inviteLink);
      await member.goto(url.pathname + url.search);
      await member.waitForURL((u) => u.pathname === '/login');
      expect(new URL(member.url()).searchParams.get('returnTo')).toBe(url.pathname + url.search);
      await submitLogin(member, MEMBER);
      await member.waitForURL((u) => u.pathname === '/app/org/invite');
      const preview = member.getByTestId('org-invite-preview');
      await expect.poll(() => preview.textContent()).toContain(ORG_NAME);
      expect(await preview.textContent()).toContain('Member');
      await h.shot(member, 'org-03-invite-accept');
      await clickWhenIdle(member.getByTestId('org-invite-accept'));
      await member.waitForURL(`**/app/org/${orgId}/overview`);
      await expect.poll(() => member.getByTestId('org-switcher').textContent()).toContain(ORG_NAME);
      expect((await org()).member_count).toBe(2);
    },
  );

  it(
    'the member switches between Personal and the organization in the header',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      const switcher = member.getByTestId('org-switcher');
      await switcher.click();
      await member.getByTestId('org-switcher-personal').click();
      await member.waitForURL('**/app/tokens');
      await expect.poll(() => switcher.getAttribute('data-current')).toBe('0');
      await expect.poll(() => switcher.textContent()).toContain('Personal');
      expect(await member.getByTestId('sidebar').textContent()).not.toContain('Org:');
      // The choice is kept: a reload stays on Personal.
      await member.reload();
      await expect.poll(() => member.getByTestId('org-switcher').getAttribute('data-current')).toBe('0');
      await member.getByTestId('org-switcher').click();
      await member.getByTestId(`org-switcher-item-${orgId}`).click();
      await member.waitForURL(`**/app/org/${orgId}/overview`);
      await expect.poll(() => member.getByTestId('org-switcher').getAttribute('data-current')).toBe(String(orgId));
      await member.reload();
      await expect.poll(() => member.getByTestId('org-switcher').getAttribute('data-current')).toBe(String(orgId));
      // A member sees no invite button, no settings, no budget editing.
      await member.goto(`/app/org/${orgId}/members`);
      await member.locator('[data-testid^="member-row-"]').first().waitFor();
      expect(await member.getByTestId('org-invite').count()).toBe(0);
      expect(await member.locator('[data-testid^="member-remove-"]').count()).toBe(0);
      await member.goto(`/app/org/${orgId}/budgets`);
      await member.getByTestId('budgets-refresh').waitFor();
      expect(await member.getByTestId('budget-add').count()).toBe(0);
    },
  );

  it(
    'the admin creates a team, adds the member and issues the member a team token',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await admin.goto(`/app/org/${orgId}/teams`);
      await admin.getByTestId('team-create').click();
      await admin.getByTestId('team-name-input').fill(TEAM_NAME);
      await clickWhenIdle(admin.getByTestId('team-name-save'));
      const row = admin.locator('[data-testid^="team-row-"]').first();
      await row.waitFor();
      teamId = Number((await row.getAttribute('data-testid'))!.replace('team-row-', ''));
      await pick(admin, admin.getByTestId(`team-add-member-${teamId}`), 'Mia Member');
      await admin.getByTestId(`team-${teamId}-member-${memberSession.id}`).waitFor();
      const teams = await apiAs<OrgTeam[]>(root, 'GET', `/api/org/${orgId}/teams`);
      expect(teams.find((tm) => tm.id === teamId)?.member_ids).toContain(memberSession.id);
      await h.shot(admin, 'org-04-teams');

      await admin.goto(`/app/org/${orgId}/tokens`);
      await admin.getByTestId('org-token-add').click();
      await admin.getByTestId('org-token-name').fill('mia-platform');
      await pick(admin, admin.getByTestId('org-token-member'), 'Mia Member');
      await pick(admin, admin.getByTestId('org-token-team'), TEAM_NAME);
      await clickWhenIdle(admin.getByTestId('org-token-save'));
      const key = admin.getByTestId('org-token-key');
      await key.waitFor();
      tokenKey = (await key.textContent())!.trim();
      expect(tokenKey).toMatch(/^sk-\w{20,}$/);
      await animationsStill(admin);
      await h.shot(admin, 'org-05-token-key');
      await admin.getByTestId('org-token-key-close').click();
      const tokens = await apiAs<OrgToken[] | { items: OrgToken[] }>(root, 'GET', `/api/org/${orgId}/tokens`);
      const list = Array.isArray(tokens) ? tokens : tokens.items;
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ member_id: memberSession.id, team_id: teamId, name: 'mia-platform' });
      // The key is shown once: the table has the masked key only.
      expect(await admin.locator('[data-testid^="org-token-row-"]').first().textContent()).not.toContain(tokenKey);
    },
  );

  it(
    'creates a hard daily team budget; calls are served until it is used, then refused',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await admin.goto(`/app/org/${orgId}/budgets`);
      await admin.getByTestId('budget-add').click();
      // Level team is the default; the target is picked from the teams.
      await pick(admin, admin.getByTestId('budget-target'), TEAM_NAME);
      await pick(admin, admin.getByTestId('budget-period'), 'Daily');
      await admin.getByTestId('budget-limit').fill(String(BUDGET_QUOTA));
      await h.shot(admin, 'org-06-budget-dialog');
      await clickWhenIdle(admin.getByTestId('budget-save'));
      await admin.locator('[data-testid^="budget-row-"]').first().waitFor();
      const [budget] = await apiAs<Budget[]>(root, 'GET', `/api/org/${orgId}/budgets`);
      expect(budget).toMatchObject({
        level: 'team',
        target_id: teamId,
        period: 'day',
        limit_quota: BUDGET_QUOTA,
        hard: true,
        used_quota: 0,
      });

      let served = 0;
      let refused: { status: number; body: { error?: { code?: string } } } | undefined;
      for (let i = 0; i < CALLS_IN_BUDGET + 2 && !refused; i++) {
        const r = await call(h, tokenKey);
        if (r.status === 200) served++;
        else refused = r;
      }
      expect(served).toBe(CALLS_IN_BUDGET);
      expect(refused?.status).toBe(429);
      expect(refused?.body.error?.code).toBe('budget_exceeded');

      await admin.getByTestId('budgets-refresh').click();
      const usage = admin.getByTestId(`budget-usage-${budget!.id}`);
      await expect.poll(() => usage.getAttribute('data-exhausted')).toBe('true');
      expect(await usage.textContent()).toContain('Used up');
      await animationsStill(admin);
      await h.shot(admin, 'org-07-budgets-used-up');
    },
  );

  it('the spend page charts the member’s spend and lists it', { timeout: STEP_TIMEOUT_MS }, async () => {
    await admin.goto(`/app/org/${orgId}/spend`);
    const chart = admin.getByTestId('spend-chart');
    await chart.waitFor();
    expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
    const row = admin.getByTestId(`spend-row-${memberSession.id}`);
    await expect.poll(() => row.textContent()).toContain(MEMBER.username);
    expect(await row.textContent()).toContain('$0.20');
    await h.shot(admin, 'org-08-spend-desktop');
    // By day, as a line.
    await pick(admin, admin.getByTestId('spend-group-by'), 'Day');
    await admin.getByTestId('spend-kind').getByText('Line').click();
    await expect.poll(() => admin.locator('[data-testid^="spend-row-"]').count()).toBe(1);
    await h.shot(admin, 'org-09-spend-by-day-line');
    // The CSV export downloads the same query.
    const download = admin.waitForEvent('download');
    await admin.getByTestId('spend-export').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
  });

  it('logs of the organization, and the pages on a phone', { timeout: STEP_TIMEOUT_MS }, async () => {
    await admin.goto(`/app/org/${orgId}/logs`);
    await expect.poll(() => admin.locator('[data-testid^="org-log-row-"]').count()).toBe(CALLS_IN_BUDGET);
    // Each call is attributed to the member and their team.
    for (const text of await admin.locator('[data-testid^="org-log-row-"]').allTextContents()) {
      expect(text).toContain(MEMBER.username);
      expect(text).toContain(TEAM_NAME);
    }
    await h.shot(admin, 'org-10-logs-desktop');

    const phone = await newPage(h, PHONE);
    await signIn(phone, ROOT);
    await phone.goto(`/app/org/${orgId}/overview`);
    await phone.getByTestId('org-wallet-quota').waitFor();
    await h.shot(phone, 'org-11-overview-phone');
    await phone.getByTestId('sidebar-toggle').click();
    await expect.poll(() => phone.locator('.tw-mobile-drawer').textContent()).toContain(`Org: ${ORG_NAME}`);
    await animationsStill(phone);
    await h.shot(phone, 'org-12-drawer-phone');
    await phone.keyboard.press('Escape');
    for (const p of ['members', 'budgets', 'spend']) {
      await phone.goto(`/app/org/${orgId}/${p}`);
      await phone.locator('.ant-table').first().waitFor();
      await h.shot(phone, `org-13-${p}-phone`);
    }
    // No page scrolls sideways on a phone.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await phone.context().close();
  });
  it(
    'the admin changes a member’s role and revokes an invitation; the pages read in Chinese',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await apiAs(root, 'POST', `/api/org/${orgId}/invitations`, { role: 'viewer' });
      await admin.goto(`/app/org/${orgId}/members`);
      await pick(admin, admin.getByTestId(`member-role-${memberSession.id}`), 'Admin');
      await expect
        .poll(async () => {
          const members = await apiAs<{ user_id: number; role: string }[]>(root, 'GET', `/api/org/${orgId}/members`);
          return members.find((m) => m.user_id === memberSession.id)?.role;
        })
        .toBe('admin');
      const revoke = admin.locator('[data-testid^="invitation-revoke-"]');
      await expect.poll(() => revoke.count()).toBe(1);
      await revoke.click();
      await admin.locator('.ant-popconfirm:visible .ant-btn-dangerous').click();
      await expect.poll(() => admin.locator('[data-testid^="invitation-row-"]').count()).toBe(0);
      const pending = await apiAs<{ status: number }[]>(root, 'GET', `/api/org/${orgId}/invitations`);
      expect(pending.filter((i) => i.status === 1)).toHaveLength(0);

      await admin.evaluate(() => localStorage.setItem('i18nextLng', 'zh'));
      await admin.goto(`/app/org/${orgId}/spend`);
      await admin.getByTestId('spend-chart').waitFor();
      expect(await admin.locator('h1').textContent()).toBe('花费分析');
      expect(await admin.getByTestId('sidebar').textContent()).toContain(`组织：${ORG_NAME}`);
      await h.shot(admin, 'org-14-spend-zh');
    },
  );
});
