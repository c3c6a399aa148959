import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, type Session } from './api-session.js';
import { login, SCREENSHOTS, type Harness } from './harness.js';
import { startRootConsole, type RootConsole } from './root-console.js';

const ROOT = { username: 'fetchroot', password: 'fetch-root-pass-1' };
const USER = { username: 'hookuser', password: 'hook-user-pass-1' };

/**
 * The outbound request guard's section of the system settings: its defaults are shown, a bad IP list is refused
 * in the form, good lists are saved as new-api's JSON arrays, and a user's webhook outside the allowed domains is
 * refused with the reason when they save it.
 */
describe('outbound request guard settings in Chromium', () => {
  let c: RootConsole;
  let h: Harness;
  let root: Session;
  let page: Page;

  const options = async () =>
    Object.fromEntries(
      (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/'))
        .filter((o) => o.key.startsWith('fetch_setting.'))
        .map((o) => [o.key, o.value]),
    );

  beforeAll(async () => {
    c = await startRootConsole('fetch', ROOT, async (r) => {
      await apiAs(r, 'POST', '/api/user/', { ...USER, display_name: 'Hook user' });
    });
    ({ h, root, page } = c);
  });
  afterAll(() => c?.close());

  it('shows the defaults, refuses a bad IP list, saves allow-lists and ports', async () => {
    await page.goto('/admin/settings?tab=system');
    const section = page.getByTestId('settings-section-fetch');
    await section.scrollIntoViewIfNeeded();
    await expect
      .poll(() => section.locator('.ant-card-head-title').textContent())
      .toBe('Outbound requests (SSRF guard)');
    expect(await page.getByTestId('option-fetch_setting.enable_ssrf_protection').getAttribute('aria-checked')).toBe(
      'true',
    );
    expect(await page.getByTestId('option-fetch_setting.allow_private_ip').getAttribute('aria-checked')).toBe('false');
    expect(await page.getByTestId('option-fetch_setting.allowed_ports').inputValue()).toBe('80, 443, 8080, 8443');
    await h.shot(page, 'fetch-settings-defaults');

    await page.getByTestId('option-fetch_setting.ip_list').fill('10.0.0.0/33');
    await page.getByTestId('settings-save-fetch').click();
    await expect
      .poll(() => section.locator('.ant-form-item-explain-error').textContent())
      .toBe('"10.0.0.0/33" is not an IP address or a CIDR block such as 10.0.0.0/8');
    await h.shot(page, 'fetch-settings-bad-ip');
    await section.screenshot({ path: path.join(SCREENSHOTS, 'fetch-settings-section-bad-ip.png') });
    expect((await options())['fetch_setting.ip_list']).toBe('[]');

    await page.getByTestId('option-fetch_setting.ip_list').fill('203.0.113.7\n10.0.0.0/8');
    await section.getByText('Allow list').first().click();
    await page.getByTestId('option-fetch_setting.domain_list').fill('hooks.example.com\n*.example.org');
    await page.getByTestId('option-fetch_setting.allowed_ports').fill('443, 9000-9100');
    await page.getByTestId('settings-save-fetch').click();
    await expect.poll(async () => (await options())['fetch_setting.allowed_ports']).toBe('["443","9000-9100"]');
    expect(await options()).toMatchObject({
      'fetch_setting.domain_filter_mode': 'true',
      'fetch_setting.domain_list': '["hooks.example.com","*.example.org"]',
      'fetch_setting.ip_filter_mode': 'false',
      'fetch_setting.ip_list': '["203.0.113.7","10.0.0.0/8"]',
    });
    await h.shot(page, 'fetch-settings-saved');
    await section.screenshot({ path: path.join(SCREENSHOTS, 'fetch-settings-section-saved.png') });
  });

  it("refuses a user's webhook outside the allowed domains with the reason", async () => {
    const { page: userPage } = await h.newPage();
    await userPage.context().addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(userPage, USER);
    await userPage.goto('/app/me');
    await userPage.getByTestId('me-notify-type').getByText('Webhook').click();
    await userPage.getByTestId('me-webhook-url').fill('https://other.example.com/hook');
    await userPage.getByTestId('me-settings-save').click();
    await expect
      .poll(() => userPage.locator('.ant-message').textContent())
      .toContain('webhook_url is not allowed: other.example.com is not in the allowed domain list');
    await userPage.screenshot({ path: path.join(SCREENSHOTS, 'fetch-settings-webhook-refused.png') });

    await userPage.getByTestId('me-webhook-url').fill('https://api.example.org/hook');
    await userPage.getByTestId('me-settings-save').click();
    await expect.poll(() => userPage.locator('.ant-message').textContent()).toContain('Settings updated');
  });
});
