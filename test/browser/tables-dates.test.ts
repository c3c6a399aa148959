import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, type Harness } from './harness.js';
import { ROOT, seedUsers, startPrivateHarness } from './tables-fixture.js';

/** The open date panel's month header and weekday row. */
async function panelTexts(page: Page): Promise<{ header: string; weekdays: string }> {
  const panel = page.locator('.ant-picker-dropdown:visible').first();
  await panel.waitFor();
  const header = (await panel.locator('.ant-picker-header-view').first().textContent()) ?? '';
  const weekdays = (await panel.locator('.ant-picker-content thead').first().textContent()) ?? '';
  return { header, weekdays };
}

/**
 * Issue 18, one language on screen: the date pickers follow the UI language (month and weekday names from the date
 * library's locale, switched with the language), and no page uses the browser's native date input.
 */
describe('date pickers in the UI language', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPrivateHarness();
    await seedUsers(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('shows Chinese month and weekday names in the Chinese UI and English ones after switching', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => {
      if (!localStorage.getItem('i18nextLng')) localStorage.setItem('i18nextLng', 'zh');
    });
    await login(page, ROOT);
    await page.goto('/app/logs/api-usage');
    await page.getByTestId('logs-range').first().click();
    const zh = await panelTexts(page);
    expect(zh.header).toMatch(/\d{4}年\s*\d{1,2}月/);
    expect(zh.weekdays).toContain('一');
    expect(zh.weekdays).not.toMatch(/Su|Mo|Tu/);
    await h.shot(page, 'tables-datepicker-zh');
    await page.keyboard.press('Escape');
    await page.locator('.ant-picker-dropdown:visible').waitFor({ state: 'hidden' });

    // Switch the language in the header: the same picker now speaks English, without a reload.
    await page.getByTestId('lang-menu').click();
    await page.getByTestId('lang-en').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.getByTestId('logs-range').first().click();
    const en = await panelTexts(page);
    expect(en.header).toMatch(/[A-Z][a-z]{2}\s*\d{4}/);
    expect(en.weekdays).toMatch(/Su/);
    expect(en.weekdays).not.toContain('一');
    await h.shot(page, 'tables-datepicker-en');
    await context.close();
  });

  it('uses no native date inputs (log clean-up, logs, messages, redemption codes)', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'zh'));
    await login(page, ROOT);
    const native = 'input[type="date"], input[type="datetime-local"], input[type="time"], input[type="month"]';
    await page.goto('/admin/settings?tab=operation');
    const cleanDate = page.getByTestId('log-clean-date');
    await cleanDate.waitFor();
    expect(await page.locator(native).count()).toBe(0);
    // The clean-up date is antd's picker in Chinese.
    await cleanDate.click();
    expect((await panelTexts(page)).header).toMatch(/\d{4}年\s*\d{1,2}月/);
    await page.keyboard.press('Escape');
    for (const url of ['/app/logs/api-usage', '/admin/messages', '/admin/coupons', '/app/tokens']) {
      await page.goto(url);
      await page.waitForLoadState('networkidle');
      expect(await page.locator(native).count(), url).toBe(0);
    }
    await page.goto('/admin/coupons');
    await page.getByTestId('redemptions-add').click();
    await page.getByTestId('redemption-form-name').waitFor();
    expect(await page.locator(native).count()).toBe(0);
    await context.close();
  });
});
