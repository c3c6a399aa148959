import { renderQuota } from '@tollway/shared';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs as api, loginSession, type Session } from './api-session.js';
import { startHarness, type Harness } from './harness.js';

const ROOT = { username: 'dashroot', password: 'dash-root-pass-1' };
const USER = { username: 'dashuser', password: 'dash-user-pass-1' };

/**
 * Issue 5's data dashboard in a real browser: calls relayed through the server to the mock upstream become
 * hourly aggregates; the dashboard shows their totals and draws the charts; an administrator narrows it to
 * one user; a user sees only their own; the dark theme.
 */
describe('data dashboard in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  let page: Page;

  const login = (u: { username: string; password: string }) => loginSession(h.baseUrl, u);
  /** An OpenAI SDK client on a new token of the session's user. */
  const sdkFor = async (s: Session) => {
    const [tok] = await api<{ key: string }[]>(s, 'POST', '/api/token/', { name: 'dash', unlimited_quota: true });
    const key = tok!.key.startsWith('sk-') ? tok!.key : `sk-${tok!.key}`;
    return new OpenAI({ apiKey: key, baseURL: `${h.baseUrl}/v1`, maxRetries: 0 });
  };
  const ask = (sdk: OpenAI, model: string) =>
    sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello dashboard' }] });
  /** Logs in through the form (the console in its default language, Chinese). */
  const browserLogin = async (p: Page, u: { username: string; password: string }) => {
    await p.goto('/login');
    // A new context loads and parses the whole console first: slow on a busy machine.
    await p.getByTestId('login-username').waitFor({ timeout: 30_000 });
    await p.getByTestId('login-username').fill(u.username);
    await p.getByTestId('login-password').fill(u.password);
    await p.getByTestId('login-submit').click();
    await p.waitForURL((url) => !url.pathname.startsWith('/login'));
  };
  /** Painted (non-transparent) pixels of the chart's canvas: an empty chart has almost none. */
  const paintedPixels = (testId: string) =>
    page
      .getByTestId(testId)
      .locator('canvas')
      .first()
      .evaluate((c: HTMLCanvasElement) => {
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      });

  let logged = { calls: 0, quota: 0, tokens: 0 };
  let rootSdk: OpenAI;
  let userSdk: OpenAI;

  beforeAll(async () => {
    mock = await startMockUpstream();
    mock.behaviors.set('dash-mock-key', { promptTokens: 120, completionTokens: 30 });
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await login(ROOT);
    await api(root, 'PUT', '/api/option/', {
      key: 'ModelPrice',
      value: JSON.stringify({ 'gpt-4o-mini': 0.002, 'claude-3-haiku': 0.001 }),
    });
    await api(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'gemini-1.5-flash': 0.5 }) });
    await api(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'dash-mock',
        type: 1,
        key: 'dash-mock-key',
        base_url: mock.url,
        models: 'gpt-4o-mini,claude-3-haiku,gemini-1.5-flash',
        group: 'default',
      },
    });
    await api(root, 'PUT', '/api/user/', { id: root.id, quota: 50_000_000 });
    await api(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    const user = await login(USER);
    await api(root, 'PUT', '/api/user/', { id: user.id, quota: 50_000_000 });

    rootSdk = await sdkFor(root);
    userSdk = await sdkFor(user);
    ({ page } = await h.newPage());
    await browserLogin(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('relays calls through the server to the mock upstream and logs them', async () => {
    // Real relayed calls: root 4 × gpt-4o-mini, 2 × claude-3-haiku, 3 × gemini-1.5-flash; the user 2 × claude-3-haiku.
    const calls = [
      ...Array.from({ length: 4 }, () => ask(rootSdk, 'gpt-4o-mini')),
      ...Array.from({ length: 2 }, () => ask(rootSdk, 'claude-3-haiku')),
      ...Array.from({ length: 3 }, () => ask(rootSdk, 'gemini-1.5-flash')),
      ...Array.from({ length: 2 }, () => ask(userSdk, 'claude-3-haiku')),
    ];
    await Promise.all(calls);
    // The writer commits every 200 ms: wait until all 11 consume logs are in, then total them.
    await expect
      .poll(async () => (await api<{ total: number }>(root, 'GET', '/api/log/?type=2&page_size=100')).total, {
        timeout: 15_000,
      })
      .toBe(11);
    const logs = (
      await api<{ items: { quota: number; prompt_tokens: number; completion_tokens: number }[] }>(
        root,
        'GET',
        '/api/log/?type=2&page_size=100',
      )
    ).items;
    logged = {
      calls: logs.length,
      quota: logs.reduce((s, l) => s + l.quota, 0),
      tokens: logs.reduce((s, l) => s + l.prompt_tokens + l.completion_tokens, 0),
    };

    expect(logged).toMatchObject({ calls: 11, tokens: 11 * 150 });
    expect(logged.quota).toBeGreaterThan(0);
  });

  it('shows an administrator the totals of every logged call and draws both charts', async () => {
    await page.goto('/app/dashboard');
    await expect.poll(() => page.getByTestId('dashboard-total-calls').textContent()).toBe(String(logged.calls));
    expect(await page.getByTestId('dashboard-total-tokens').textContent()).toBe(logged.tokens.toLocaleString('en-US'));
    // Under $1 the dashboard shows four decimals.
    const quotaText = renderQuota(logged.quota, {
      displayInCurrency: true,
      quotaPerUnit: 500_000,
      digits: logged.quota < 500_000 ? 4 : 2,
    });
    expect(await page.getByTestId('dashboard-total-quota').textContent()).toBe(quotaText);
    await page.getByTestId('dashboard-consumption-chart').locator('canvas').waitFor();
    await page.getByTestId('dashboard-calls-chart').locator('canvas').waitFor();
    await expect.poll(() => paintedPixels('dashboard-consumption-chart')).toBeGreaterThan(5000);
    await expect.poll(() => paintedPixels('dashboard-calls-chart')).toBeGreaterThan(5000);
    await page.waitForTimeout(1200); // the charts' entry animation
    await h.shot(page, '60-dashboard-admin');

    // Hovering the hour of the calls (the last bars, right of the chart) lists each model and the total.
    const chart = page.getByTestId('dashboard-consumption-chart');
    const box = (await chart.boundingBox())!;
    await expect
      .poll(async () => {
        for (const dx of [42, 68, 94]) {
          await page.mouse.move(box.x + box.width - dx, box.y + box.height / 2);
          const text = (await chart.textContent()) ?? '';
          if (text.includes('gpt-4o-mini')) return text;
        }
        return '';
      })
      .toMatch(/gpt-4o-mini.*claude-3-haiku.*gemini-1\.5-flash.*合计/s);
    await h.shot(page, '60b-dashboard-tooltip');
    await page.mouse.move(0, 0);
  });

  it('regroups by day and shows the tokens metric', async () => {
    await page.getByTestId('dashboard-granularity').getByText('天', { exact: true }).click();
    await page.getByTestId('dashboard-metric').getByText('Token', { exact: true }).click();
    await expect.poll(() => paintedPixels('dashboard-consumption-chart')).toBeGreaterThan(5000);
    expect(await page.getByTestId('dashboard-total-calls').textContent()).toBe(String(logged.calls));
    await page.waitForTimeout(1200);
    await h.shot(page, '61-dashboard-day-tokens');
  });

  it('lets an administrator narrow the dashboard to one user', async () => {
    // Typing suggests matching usernames; picking one queries at once.
    await page.getByTestId('dashboard-username').locator('input').fill('dashu');
    await page.locator('.ant-select-item-option', { hasText: USER.username }).click();
    await expect.poll(() => page.getByTestId('dashboard-total-calls').textContent()).toBe('2');
    expect(await page.getByTestId('dashboard-total-tokens').textContent()).toBe('300');
    expect(await page.getByTestId('dashboard-username').locator('input').inputValue()).toBe(USER.username);
    await page.waitForTimeout(1200);
    await h.shot(page, '62-dashboard-one-user');
  });

  it('follows the dark theme', async () => {
    await page.evaluate(() => localStorage.setItem('theme-mode', 'dark'));
    await page.goto('/app/dashboard');
    await expect.poll(() => page.getByTestId('dashboard-total-calls').textContent()).toBe(String(logged.calls));
    await expect.poll(() => paintedPixels('dashboard-calls-chart')).toBeGreaterThan(5000);
    await page.waitForTimeout(1200);
    await h.shot(page, '63-dashboard-dark');
    await page.evaluate(() => localStorage.setItem('theme-mode', 'light'));
  });

  it('shows a user only their own calls (on a phone)', async () => {
    const { context, page: userPage } = await h.newPage({ mobile: true });
    await browserLogin(userPage, USER);
    await userPage.goto('/app/dashboard');
    await expect.poll(() => userPage.getByTestId('dashboard-total-calls').textContent()).toBe('2');
    await expect(userPage.getByTestId('dashboard-username').count()).resolves.toBe(0);
    await userPage.getByTestId('dashboard-calls-chart').locator('canvas').waitFor();
    await userPage.waitForTimeout(1200);
    await h.shot(userPage, '64-dashboard-user-mobile');
    await context.close();
  });

  it('leaves the sidebar and shows a notice when DataExportEnabled is off', async () => {
    await page.goto('/app/tokens');
    await expect.poll(() => page.getByTestId('sidebar').textContent()).toContain('数据看板');
    await api(root, 'PUT', '/api/option/', { key: 'DataExportEnabled', value: 'false' });
    await page.reload();
    await expect.poll(() => page.getByTestId('sidebar').textContent()).not.toContain('数据看板');
    await page.goto('/app/dashboard');
    await page.getByTestId('dashboard-disabled').waitFor();
    expect(await page.getByTestId('dashboard-totals').count()).toBe(0);
    await h.shot(page, '65-dashboard-disabled');
  });
});
