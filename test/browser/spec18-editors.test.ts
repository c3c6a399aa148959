import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, motionSettled, startHarness, type Harness } from './harness.js';

const ROOT = { username: 's18root', password: 's18-root-pass-1' };
const EPAY = { PayAddress: 'https://pay.example.com', EpayId: '1001', EpayKey: 'spec18-epay-key' };

/**
 * Editors refuse what the server would refuse, with the rule's message, and save nothing: a fixed price of 0 for an
 * unset model, a redemption count of 0 or 101, a rebate of 150, a tag priority of 1.5, a top-up of 0.5 and a typed
 * expiry that is not a date. The token editor sets the token's rate limit, the channel editor the model prefix and
 * the input cap and sends models and groups as comma text; a pay request carries top_up_code; a 502's message shows.
 */
describe('spec editors and validation messages in Chromium', () => {
  let h: Harness;
  let root: Session;
  let page: Page;
  let channelId: number;

  const option = async (key: string) =>
    (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).find((o) => o.key === key)?.value;
  /** The visible antd message toasts' text. */
  const toasts = (p: Page) => p.locator('.ant-message-notice').allTextContents();

  beforeAll(async () => {
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 's18-chan',
        type: 1,
        key: 's18-key',
        base_url: 'http://127.0.0.1:9',
        models: 'gpt-4o,s18-free-me',
        group: 'default',
        tag: 's18tag',
      },
    });
    channelId = (await apiAs<{ items: { id: number }[] }>(root, 'GET', '/api/channel/?p=1&page_size=10')).items[0]!.id;
    ({ page } = await h.newPage());
    await page.context().addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('login-username').waitFor({ timeout: 45_000 });
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses a fixed price of 0 in the unset-models dialog and saves nothing', async () => {
    await page.goto('/admin/settings?tab=operation');
    await page.getByTestId('pricing-tab-unset').click();
    await page.getByTestId('unset-price-s18-free-me').click();
    await page.getByTestId('batch-price').fill('0');
    await page.getByTestId('batch-apply').click();
    await expect.poll(() => toasts(page)).toContain('Model price cannot be 0');
    await h.shot(page, 'spec18-unset-price-zero');
    expect(JSON.parse((await option('ModelPrice'))!)).not.toHaveProperty('s18-free-me');
    // A real price is taken and the model leaves the list.
    await page.getByTestId('batch-price').fill('0.02');
    await page.getByTestId('batch-apply').click();
    await page.getByTestId('unset-row-s18-free-me').waitFor({ state: 'detached' });
    expect(JSON.parse((await option('ModelPrice'))!)['s18-free-me']).toBe(0.02);
  });

  it('sets a token rate limit and refuses a typed expiry that is not a date', async () => {
    await page.goto('/app/tokens');
    await page.getByTestId('tokens-add').click();
    await page.getByTestId('token-form-name').fill('s18-garbage');
    const expiry = page.getByTestId('token-form-expiry');
    await expiry.click();
    await expiry.pressSequentially('not a date');
    await page.getByTestId('token-form-name').click();
    await page.getByTestId('token-form-submit').click();
    await page.getByText('Expiry time format is wrong!').waitFor();
    // The picker's panel does not stay open over the form.
    await expect.poll(() => page.locator('.ant-picker-dropdown:not(.ant-picker-dropdown-hidden)').count()).toBe(0);
    await h.shot(page, 'spec18-token-expiry-garbage');
    expect((await apiAs<{ items: unknown[] }>(root, 'GET', '/api/token/?p=1&size=10')).items).toHaveLength(0);
    await page.getByTestId('token-form-expiry-never').click();
    await page.getByTestId('token-form-rate-enabled').click();
    await page.getByTestId('token-form-ratePeriod').fill('0');
    await page.getByTestId('token-form-submit').click();
    await page.getByText('The window must be a whole number from 1 to 2592000').waitFor();
    await page.getByTestId('token-form-ratePeriod').fill('120');
    await page.getByTestId('token-form-rateCount').fill('5');
    await page.getByTestId('token-form-rateSuccess').fill('3');
    await h.shot(page, 'spec18-token-rate-limit');
    await page.getByTestId('token-form-submit').click();
    await page.getByTestId('token-form-name').waitFor({ state: 'hidden' });
    const [tok] = (await apiAs<{ items: Record<string, unknown>[] }>(root, 'GET', '/api/token/?p=1&size=10')).items;
    expect(tok).toMatchObject({
      name: 's18-garbage',
      expired_time: -1,
      rate_limit_enabled: true,
      rate_limit_period: 120,
      rate_limit_count: 5,
      rate_limit_success: 3,
    });
  });

  it('refuses redemption counts 0 and 101 with the message and creates nothing', async () => {
    await page.goto('/admin/coupons');
    await page.getByTestId('redemptions-add').click();
    await page.getByTestId('redemption-form-name').fill('s18-codes');
    for (const n of ['101', '0']) {
      await page.getByTestId('redemption-form-count').fill(n);
      await page.getByTestId('redemption-form-submit').click();
      await page.getByText('The count must be between 1 and 100').waitFor();
      expect(await page.getByTestId('redemption-form-count').inputValue()).toBe(n);
    }
    await h.shot(page, 'spec18-redemption-count');
    expect((await apiAs<{ total: number }>(root, 'GET', '/api/redemption/?p=1&page_size=10')).total).toBe(0);
  });

  it('sets model prefix and input cap in the channel editor and sends models and groups as comma text', async () => {
    await page.goto('/admin/channels');
    await page.getByTestId(`channel-edit-${channelId}`).click();
    await page.getByTestId('channel-form-model-prefix').fill('s18/');
    await page.getByTestId('channel-form-max-input-tokens').fill('8192');
    await h.shot(page, 'spec18-channel-editor');
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/channel/') && r.method() === 'PUT');
    await page.getByTestId('channel-form-submit').click();
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    expect(body).toMatchObject({
      models: 'gpt-4o,s18-free-me',
      group: 'default',
      model_prefix: 's18/',
      max_input_tokens: 8192,
    });
    await page.getByTestId('channel-form').waitFor({ state: 'hidden' });
    const saved = await apiAs<Record<string, unknown>>(root, 'GET', `/api/channel/${channelId}`);
    expect(saved).toMatchObject({ model_prefix: 's18/', max_input_tokens: 8192, models: 'gpt-4o,s18-free-me' });
  });

  it('refuses a tag priority of 1.5 and a rebate of 150 with their messages', async () => {
    await page.goto('/admin/channels');
    await page.locator('[data-testid^="channel-row-"]').first().waitFor();
    if (!(await page.getByTestId('channels-tag-mode').isChecked())) await page.getByTestId('channels-tag-mode').click();
    await page.getByTestId('channel-tag-edit-s18tag').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('tag-form-priority').fill('1.5');
    await page.getByTestId('tag-form-submit').click();
    await expect.poll(() => toasts(page)).toContain('Priority must be an integer');
    expect(await page.getByTestId('tag-form-priority').inputValue()).toBe('1.5');
    expect((await apiAs<{ priority: number }>(root, 'GET', `/api/channel/${channelId}`)).priority).toBe(0);

    await page.goto('/admin/settings?tab=operation');
    const section = page.getByTestId('settings-section-rebate');
    await section.getByTestId('option-RebateEnabled').click();
    await section.getByTestId('option-RebatePercentage').fill('150');
    await section.getByTestId('settings-save-rebate').click();
    await section.getByText('The rebate percentage must be between 0 and 100').waitFor();
    expect(Number(await section.getByTestId('option-RebatePercentage').inputValue())).toBe(150);
    await h.shot(page, 'spec18-rebate-150');
    expect(await option('RebatePercentage')).toBe('0');
  });

  it('forces a top-up under 1 to 1 and refuses one under the minimum, sends top_up_code with the price request and the payment and shows a 502 message', async () => {
    for (const [key, value] of Object.entries({ ...EPAY, ServerAddress: h.baseUrl, MinTopUp: '2' }))
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    await page.goto('/app/wallet');
    const amount = page.getByTestId('topup-amount');
    // The spec: the amount is forced to at least 1, and one under the minimum says so with the minimum.
    await amount.fill('0.5');
    await expect
      .poll(() => page.getByTestId('topup-payable').textContent())
      .toBe('The top-up amount cannot be less than 2');
    await amount.blur();
    expect(await amount.inputValue()).toBe('1');
    await amount.fill('2.5');
    await expect
      .poll(() => page.getByTestId('topup-payable').textContent())
      .toBe('The top-up amount must be a whole number');
    await h.shot(page, 'spec18-topup-fraction');
    const priced = page.waitForRequest((r) => r.url().endsWith('/api/user/amount') && r.postDataJSON()?.amount === 3);
    await amount.fill('3');
    expect((await priced).postDataJSON()).toEqual({ amount: 3, top_up_code: '' });
    await expect.poll(() => page.getByTestId('topup-payable').textContent()).not.toContain('whole');
    // The payment page is not opened: the answer is a 502 whose own message the console shows.
    await page.route('**/api/user/pay', (r) =>
      r.fulfill({
        status: 502,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, message: 'payment gateway unreachable' }),
      }),
    );
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/user/pay'));
    await page.getByTestId('topup-pay-zfb').click();
    expect((await sent).postDataJSON()).toEqual({ amount: 3, payment_method: 'zfb', top_up_code: '' });
    await expect.poll(() => toasts(page)).toContain('payment gateway unreachable');
    expect((await toasts(page)).some((t) => t.includes('Internal server error'))).toBe(false);
    await h.shot(page, 'spec18-502-message');
  });
});
