import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, setUpRoot } from './api-session.js';
import { type Harness } from './harness.js';
import { openAs, startPrivateHarness, type Lang } from './tables-fixture.js';

const ROOT = { username: 'flowsroot', password: 'flows-root-pass-1' };
const USER = { username: 'flowsuser', password: 'flows-user-pass-1' };
const VIEWPORT = { width: 1366, height: 860 };

const WORDS = {
  zh: { retry: /^重试（\d+）$/, minimum: '充值数量不能小于 2', version: '版本' },
  en: { retry: /^Retry\(\d+\)$/, minimum: 'The top-up amount cannot be less than 2', version: 'Version' },
} as const;

/**
 * The spec's behaviours of the console: the reset-password countdown starts with the click (even when the server
 * refuses), the top-up amount is never below 1, /admin/messages sends a non-admin home, and without a release feed
 * there is no update check.
 */
describe('console flows against the spec in Chromium', () => {
  let h: Harness;
  const state = new Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>();
  const contexts: BrowserContext[] = [];
  const open = async (who: typeof ROOT, lang: Lang): Promise<Page> => {
    const { context, page } = await openAs(h, who, lang, VIEWPORT, state);
    contexts.push(context);
    return page;
  };
  const visitor = async (lang: Lang): Promise<Page> => {
    const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport: VIEWPORT });
    await context.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
    contexts.push(context);
    return context.newPage();
  };

  beforeAll(async () => {
    h = await startPrivateHarness();
    const root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...USER, display_name: 'Flows' });
    // Online top-up on (Epay), with a minimum of 2; no mail server is set, so a reset mail is refused.
    for (const [key, value] of Object.entries({
      PayAddress: 'https://pay.example.com',
      EpayId: '1001',
      EpayKey: 'flows-epay-key',
      Price: '7.3',
      MinTopUp: '2',
    }))
      await apiAs(root, 'PUT', '/api/option/', { key, value });
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await h?.close();
  });

  it.each(['zh', 'en'] as const)('the reset-password button counts down from the click in %s', async (lang) => {
    const page = await visitor(lang);
    await page.goto('/reset');
    await page.getByTestId('reset-email').fill('someone@example.com');
    const submit = page.getByTestId('reset-submit');
    await submit.click();
    // The server refuses (no mail server set), yet the retry countdown runs.
    await page.locator('.ant-message-notice').first().waitFor();
    await expect.poll(() => submit.isDisabled()).toBe(true);
    expect((await submit.textContent())?.replace(/\s/g, '')).toMatch(WORDS[lang].retry);
    await h.shot(page, `console-flows-reset-${lang}`);
  });

  it.each(['zh', 'en'] as const)('a top-up amount of 0 becomes 1, below the minimum of 2, in %s', async (lang) => {
    const page = await open(USER, lang);
    await page.goto('/app/wallet');
    const amount = page.getByTestId('topup-amount');
    await amount.fill('0');
    await expect.poll(() => amount.inputValue()).toBe('1');
    await expect.poll(() => page.getByTestId('topup-payable').textContent()).toBe(WORDS[lang].minimum);
    await amount.fill('');
    await amount.blur();
    await expect.poll(() => amount.inputValue()).toBe('2');
    await expect.poll(() => page.getByTestId('topup-payable').textContent()).toBe('¥14.60');
    await page.mouse.move(0, 0);
    await h.shot(page, `console-flows-topup-${lang}`);
  });

  it.each(['zh', 'en'] as const)('/admin/messages sends a non-admin to / in %s', async (lang) => {
    const page = await open(USER, lang);
    await page.goto('/app/wallet');
    await page.getByTestId('topup-card').waitFor();
    await page.goto('/admin/messages');
    await page.waitForURL((u) => u.pathname !== '/admin/messages');
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.getByTestId('forbidden').count()).toBe(0);
    expect(await page.getByTestId('message-table').count()).toBe(0);
  });

  it.each(['zh', 'en'] as const)('without a release feed, settings show no update check in %s', async (lang) => {
    const page = await open(ROOT, lang);
    await page.goto('/admin/settings?tab=other');
    const info = page.getByTestId('settings-system-info');
    await info.waitFor();
    await expect.poll(() => info.textContent()).toContain(WORDS[lang].version);
    expect(await page.getByTestId('settings-check-update').count()).toBe(0);
    await info.scrollIntoViewIfNeeded();
    await h.shot(page, `console-flows-system-info-${lang}`);
  });
});
