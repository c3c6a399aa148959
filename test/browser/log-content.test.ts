import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs as api, loginSession, type Session } from './api-session.js';
import { freePort } from '../../packages/server/test/support/process.js';
import { login, newestLogRow, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'lcroot', password: 'lc-root-pass-1' };
const USER = { username: 'lcuser', password: 'lc-user-pass-1' };
/** A 40-line answer: long enough to be shown clamped. */
const PIECES = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the answer.\n`);

/**
 * LogChatContentEnabled in a real browser: a user's streamed call is logged with its prompt and answer; the
 * user opens the row in their usage logs (English) and sees both, the long answer clamped until expanded.
 */
describe('chat content in the usage log details in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let page: Page;
  let root: Session;
  let userKey: string;

  beforeAll(async () => {
    mock = await startMockUpstream();
    mock.behaviors.set('lc-mock-key', { pieces: PIECES });
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    await api(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 1 }) });
    await api(root, 'PUT', '/api/option/', { key: 'LogChatContentEnabled', value: 'true' });
    await api(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'lc-mock',
        type: 1,
        key: 'lc-mock-key',
        base_url: mock.url,
        models: 'gpt-4o-mini',
        group: 'default',
      },
    });
    await api(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    const user = await loginSession(h.baseUrl, USER);
    await api(root, 'PUT', '/api/user/', { id: user.id, quota: 50_000_000 });
    const [tok] = await api<{ key: string }[]>(user, 'POST', '/api/token/', { name: 'lc', unlimited_quota: true });
    const key = tok!.key.startsWith('sk-') ? tok!.key : `sk-${tok!.key}`;
    userKey = key;
    const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [
          { role: 'system', content: 'You answer in numbered lines.' },
          { role: 'user', content: 'Give me forty lines.' },
        ],
      }),
    });
    expect(res.status).toBe(200);
    await res.text();

    let context;
    ({ page, context } = await h.newPage());
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('login-username').waitFor({ timeout: 30_000 });
    await page.getByTestId('login-username').fill(USER.username);
    await page.getByTestId('login-password').fill(USER.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('shows the user the prompt and the answer of their call, the long answer clamped until expanded', async () => {
    const row = await newestLogRow(page, 'gpt-4o-mini');
    await row.locator('.ant-table-row-expand-icon').click();
    const input = page.locator('[data-testid^="log-input-"]').first();
    const output = page.locator('[data-testid^="log-output-"]').first();
    await input.waitFor();
    expect(await input.textContent()).toContain('Input');
    expect(await input.locator('.tw-log-chat').textContent()).toBe(
      'You answer in numbered lines.\n\nGive me forty lines.',
    );
    expect(await output.textContent()).toContain('Output');
    expect(await output.locator('.tw-log-chat').textContent()).toBe(PIECES.join(''));
    // Short prompt: no toggle; long answer: clamped, then expanded.
    expect(await input.locator('[data-testid$="-toggle"]').count()).toBe(0);
    const box = output.locator('.tw-log-chat');
    const clamped = await box.evaluate((el) => el.getBoundingClientRect().height);
    expect(clamped).toBeLessThanOrEqual(130);
    await h.shot(page, 'log-content-clamped');
    await output.locator('[data-testid$="-toggle"]').click();
    expect(await output.locator('[data-testid$="-toggle"]').textContent()).toBe('Collapse');
    await expect.poll(() => box.evaluate((el) => el.getBoundingClientRect().height)).toBeGreaterThan(clamped + 200);
    // A taller window keeps the panel open (and shows it whole in the screenshot).
    await page.setViewportSize({ width: 1366, height: 1400 });
    await page.waitForTimeout(300);
    expect(await output.locator('[data-testid$="-toggle"]').textContent()).toBe('Collapse');
    await h.shot(page, 'log-content-expanded');
  });

  it("a failed call: the user's log shows a generic error, root's log also the upstream's detail", async () => {
    // A channel on a port nothing listens on: the call fails to connect.
    const closed = await freePort();
    await api(root, 'PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ 'gpt-4o-mini': 1, 'lc-dead': 1 }),
    });
    await api(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'lc-dead',
        type: 1,
        key: 'lc-dead-key',
        base_url: `http://127.0.0.1:${closed}`,
        models: 'lc-dead',
        group: 'default',
      },
    });
    const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'lc-dead', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = await res.text();
    expect(res.status).toBe(502);
    expect(body).not.toContain('127.0.0.1');

    await page.setViewportSize({ width: 1366, height: 860 });
    const userRow = await newestLogRow(page, 'lc-dead');
    await userRow.locator('.ant-table-row-expand-icon').click();
    const userDetail = page.locator('[data-testid^="log-detail-"]').first();
    await userDetail.waitFor();
    // Written from the row's event in the viewer's language (English here).
    expect(await userDetail.textContent()).toContain('Upstream request failed');
    expect(await userDetail.textContent()).not.toContain('127.0.0.1');
    expect(await page.locator('[data-testid^="log-error-detail-"]').count()).toBe(0);
    await h.shot(page, 'log-error-user');

    const { page: rootPage, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(rootPage, ROOT);
    const rootRow = await newestLogRow(rootPage, 'lc-dead');
    await rootRow.locator('.ant-table-row-expand-icon').click();
    const detail = rootPage.locator('[data-testid^="log-error-detail-"]').first();
    await detail.waitFor();
    expect(await detail.textContent()).toContain(`127.0.0.1:${closed}`);
    expect(await rootPage.locator('[data-testid^="log-detail-"]').first().textContent()).toContain(
      'Upstream error detail (administrators only)',
    );
    await h.shot(rootPage, 'log-error-root');
    await context.close();
  });
});
