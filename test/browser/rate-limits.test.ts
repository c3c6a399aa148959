import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, pageApi, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rlroot', password: 'rl-root-pass-1' };
const CUSTOMER = { username: 'rlcustomer', password: 'rl-customer-1' };

/** Requests and tokens per minute set in the console reach the relay: the user editor and the group settings. */
describe('rate limits in the console (Chromium)', () => {
  let h: Harness;
  let page: Page;
  let mock: MockUpstream;
  let rootApi: Session;
  let customerId: number;
  beforeAll(async () => {
    mock = await startMockUpstream();
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    rootApi = await loginSession(h.baseUrl, ROOT);
    customerId = (await apiAs<{ id: number }>(rootApi, 'POST', '/api/user/', { ...CUSTOMER, display_name: 'Customer' }))
      .id;
    ({ page } = await h.newPage());
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it("saves a user's RPM and TPM in the user editor", async () => {
    await page.goto(`/user/edit/${customerId}`);
    const rpm = page.getByTestId('user-form-rpm');
    await expect.poll(() => rpm.inputValue()).toBe('0');
    await rpm.fill('30');
    await page.getByTestId('user-form-tpm').fill('40000');
    await h.shot(page, 'rate-limits-01-user-editor');
    await page.getByTestId('user-form-submit').click();
    await expect
      .poll(async () => {
        const u = (await pageApi<{ rpm_limit: number; tpm_limit: number }>(page, 'GET', `/api/user/${customerId}`))
          .data;
        return [u?.rpm_limit, u?.tpm_limit];
      })
      .toEqual([30, 40000]);
  });

  it('saves GroupRateLimits on the group settings page and the relay holds the group to it', async () => {
    await page.goto('/admin/settings?tab=operation');
    const field = page.getByTestId('option-GroupRateLimits');
    await field.waitFor();
    await field.fill('{"default": {"rpm": -1}}');
    await page.getByTestId('settings-save-groups').click();
    // The server's check names the field at fault, by its code in the console's language (Chinese here).
    await page.getByText('“GroupRateLimits.default.rpm”不能小于 0').first().waitFor();
    await field.fill('{"default": {"rpm": 1}}');
    await field.blur();
    await h.shot(page, 'rate-limits-02-group-settings');
    await page.getByTestId('settings-save-groups').click();
    await expect
      .poll(
        async () =>
          (await pageApi<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data?.find(
            (o) => o.key === 'GroupRateLimits',
          )?.value,
      )
      .toBe('{"default": {"rpm": 1}}');

    await apiAs(rootApi, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'rl-up', type: 1, key: 'rl-key', base_url: mock.url, models: 'gpt-4o-mini', group: 'default' },
    });
    await apiAs(rootApi, 'PUT', '/api/user/', { id: customerId, quota: 5_000_000 });
    const customer = await loginSession(h.baseUrl, CUSTOMER);
    const [token] = await apiAs<{ key: string }[]>(customer, 'POST', '/api/token/', {
      name: 'rl-token',
      unlimited_quota: true,
    });
    const chat = () =>
      fetch(`${h.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token!.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    // Fixed minute windows: start well inside one.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 8_000) await new Promise((r) => setTimeout(r, left + 50));
    const first = await chat();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('1');
    const second = await chat();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
