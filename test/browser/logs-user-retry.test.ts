import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderQuota } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, motionSettled, privateConsole, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'lurroot', password: 'lur-root-pass-1' };
const ADMIN = { username: 'lurops', password: 'lur-ops-pass-1' };
const INVITER = { username: 'lurinviter', password: 'lur-inviter-pass-1' };
const CUSTOMER = { username: 'lurcustomer', password: 'lur-customer-pass-1' };
const MODEL = 'gpt-4o-mini';
/** The customer's balance before the call: $100. */
const CUSTOMER_QUOTA = 50_000_000;

/** Registers an account through the public form's API, with an invite code when given. */
async function register(baseUrl: string, who: { username: string; password: string }, affCode = '') {
  const res = await fetch(`${baseUrl}/api/user/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...who, password2: who.password, aff_code: affCode }),
  });
  const env = (await res.json()) as { success: boolean; message: string };
  expect(env.success, env.message).toBe(true);
}

/** One chat call with `key`, answered 200. */
async function call(baseUrl: string, key: string) {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key.startsWith('sk-') ? key : `sk-${key}`}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

/**
 * Admin usage logs in Chromium: a call retried from a failing channel to a healthy one shows its retry count and channel
 * path; the username opens the user's account card (GET /api/user/{id}) with loading, data and refusal states.
 */
describe('usage logs: retry column and user info popup in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let dir: string;
  let root: Session;
  let customerId: number;
  let inviterId: number;
  let flakyId: number;
  let healthyId: number;
  beforeAll(async () => {
    mock = await startMockUpstream();
    mock.behaviors.set('lur-flaky-key', { failStatus: 502 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-logs-user-'));
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: privateConsole(dir) });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 1 }) });
    await apiAs(root, 'PUT', '/api/option/', { key: 'RetryTimes', value: '1' });
    await apiAs(root, 'PUT', '/api/option/', { key: 'AffEnabled', value: 'true' });
    // The failing channel has the higher priority, so every call tries it first and is retried on the healthy one.
    const mk = (name: string, key: string, priority: number) =>
      apiAs<{ ids: number[] }>(root, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { name, type: 1, key, base_url: mock.url, models: MODEL, group: 'default', priority },
      });
    flakyId = (await mk('lur-flaky', 'lur-flaky-key', 10)).ids[0]!;
    healthyId = (await mk('lur-healthy', 'lur-healthy-key', 0)).ids[0]!;
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops', role: 10 });

    await register(h.baseUrl, INVITER);
    const inviter = await loginSession(h.baseUrl, INVITER);
    inviterId = inviter.id;
    await register(h.baseUrl, CUSTOMER, await apiAs<string>(inviter, 'GET', '/api/user/aff'));
    const customer = await loginSession(h.baseUrl, CUSTOMER);
    customerId = customer.id;
    await apiAs(root, 'PUT', '/api/user/', { id: customerId, display_name: 'Customer Ltd', quota: CUSTOMER_QUOTA });
    const [tok] = await apiAs<{ key: string }[]>(customer, 'POST', '/api/token/', {
      name: 'lur',
      unlimited_quota: true,
    });
    await call(h.baseUrl, tok!.key);
    // Root calls too: an administrator may not open root's account card.
    const [rootTok] = await apiAs<{ key: string }[]>(root, 'POST', '/api/token/', {
      name: 'lur-root',
      unlimited_quota: true,
    });
    await call(h.baseUrl, rootTok!.key);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('records both channels of a retried call and shows the retry count with the path', async () => {
    // The server keeps the channels tried, in order, in the row's admin info.
    const logs = () =>
      apiAs<{ items: { username: string; other: string }[] }>(
        root,
        'GET',
        `/api/log/?p=1&page_size=10&type=2&username=${CUSTOMER.username}`,
      );
    // Consumption rows are written after the answer: wait for the row.
    await expect.poll(async () => (await logs()).items.length).toBe(1);
    expect(JSON.parse((await logs()).items[0]!.other).admin_info.use_channel).toEqual([flakyId, healthyId]);

    const { page } = await h.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await login(page, ROOT);
    await page.goto('/app/logs/api-usage');
    const row = page.locator('[data-testid^="log-row-"]', { hasText: CUSTOMER.username }).first();
    await row.waitFor();
    const retry = row.locator('[data-testid^="log-retry-"]');
    expect((await retry.textContent())?.trim()).toBe('1');
    expect(await retry.getAttribute('data-path')).toBe(`#${flakyId} → #${healthyId}`);
    await retry.hover();
    const tip = page.locator('.ant-tooltip:visible');
    await expect.poll(() => tip.textContent()).toBe(`重试 1 次，依次经过渠道 #${flakyId} → #${healthyId}`);
    // The main columns fit a 1440 px window: no sideways scrolling.
    const body = page
      .locator('[data-testid="logs-table"] .ant-table-content, [data-testid="logs-table"] .ant-table-body')
      .first();
    expect(await body.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    await h.shot(page, 'logs-retry-01-zh-1440');
    // On a 1280 px laptop secondary columns are left out (named under the table); the retry column stays.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => body.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    await expect.poll(() => page.getByTestId('logs-folded').getAttribute('data-keys')).toMatch(/^ip|^channel/);
    expect(await retry.isVisible()).toBe(true);
    const box = (await body.boundingBox())!;
    const cell = (await page.locator('th[data-col="retry"]').first().boundingBox())!;
    expect(cell.x + cell.width).toBeLessThanOrEqual(box.x + box.width + 1);
    await h.shot(page, 'logs-retry-05-zh-1280');
    await page.context().close();
  });

  it('opens the user card from the username: loading, then the account in the display currency (root, English)', async () => {
    const { page, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.setViewportSize({ width: 1440, height: 900 });
    await login(page, ROOT);
    // The account request is held until the loading state has been seen.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(`**/api/user/${customerId}`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/app/logs/api-usage');
    const name = page.getByTestId(`log-user-${customerId}`).first();
    await name.click();
    await page.getByTestId('log-user-loading').waitFor();
    release();
    const card = page.getByTestId('log-user-info');
    await card.waitFor();
    const user = await apiAs<{ quota: number; used_quota: number; request_count: number }>(
      root,
      'GET',
      `/api/user/${customerId}`,
    );
    expect(user.request_count).toBe(1);
    expect(await card.getByTestId('log-user-username').textContent()).toBe(CUSTOMER.username);
    expect(await card.textContent()).toContain('Customer Ltd');
    expect(await card.getByTestId('log-user-balance').textContent()).toBe(
      renderQuota(user.quota, { displayInCurrency: true }),
    );
    expect(user.quota).toBeLessThan(CUSTOMER_QUOTA);
    expect(await card.getByTestId('log-user-used').textContent()).toMatch(/^\$0\.\d+$/);
    expect(await card.getByTestId('log-user-requests').textContent()).toBe('1');
    expect(await card.textContent()).toContain('User');
    expect(await card.textContent()).toContain('Activated');
    expect(await card.getByTestId('log-user-invite').textContent()).toContain(`Invited by #${inviterId}`);
    await motionSettled(page);
    await h.shot(page, 'logs-retry-02-user-card-en');
    // Dark mode shows the same card.
    await page.keyboard.press('Escape');
    await page.evaluate(() => localStorage.setItem('theme-mode', 'dark'));
    await page.reload();
    await page.getByTestId(`log-user-${customerId}`).first().click();
    await card.waitFor();
    await motionSettled(page);
    await h.shot(page, 'logs-retry-03-user-card-dark');
    await context.close();
  });

  it("shows the server's refusal in the card when an administrator opens root's account", async () => {
    const { page } = await h.newPage();
    await login(page, ADMIN);
    await page.goto('/app/logs/api-usage');
    await page.getByTestId(`log-user-${root.id}`).first().click();
    const error = page.getByTestId('log-user-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('无法加载用户信息');
    expect(await page.getByTestId('log-user-info').count()).toBe(0);
    // The refusal is shown in the card only, not also as a toast.
    expect(await page.locator('.ant-message-notice').count()).toBe(0);
    await motionSettled(page);
    await h.shot(page, 'logs-retry-04-admin-refused');
    // The customer's card opens for the same administrator.
    await page.keyboard.press('Escape');
    await page.getByTestId(`log-user-${customerId}`).first().click();
    await page.getByTestId('log-user-info').waitFor();
    await page.context().close();
  });
});
