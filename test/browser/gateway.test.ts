import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { motionSettled, newestLogRow, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'gwroot', password: 'gw-root-pass-1' };

/**
 * Issue 3 in a real browser: an administrator adds a channel pointing at our mock upstream, creates a token,
 * a call is made with it, and the console shows the log row with the right quota and the new balance.
 */
describe('gateway core in Chromium', () => {
  let h: Harness;
  let page: Page;
  let mock: MockUpstream;
  beforeAll(async () => {
    mock = await startMockUpstream();
    // (200000 + 50000 × 4) × 0.075 = 30000 quota = $0.06 exactly.
    mock.behaviors.set('browser-mock-key', { promptTokens: 200_000, completionTokens: 50_000 });
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    ({ page } = await h.newPage());
    await page.goto('/login');
    await page.getByTestId('login-username').fill(ROOT.username);
    await page.getByTestId('login-password').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    // $10 of balance for the root user.
    const ok = await page.evaluate(async () => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}');
      const r = await fetch('/api/user/', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'New-Api-User': String(user.id) },
        body: JSON.stringify({ id: user.id, quota: 5_000_000 }),
      });
      return (await r.json()).success;
    });
    expect(ok).toBe(true);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('adds a channel pointing at the mock upstream', async () => {
    await page.goto('/admin/channels');
    await page.getByTestId('channels-add').click();
    await page.getByTestId('channel-form-name').fill('mock-openai');
    await page.getByTestId('channel-form-base-url').fill(mock.url);
    await page.getByTestId('channel-form-key').fill('browser-mock-key');
    const models = page.getByTestId('channel-form-models');
    await models.click();
    await page.keyboard.type('gpt-4o-mini');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    // The upstream account's own limit, far above what this test sends.
    await page.getByTestId('channel-form-tpm').fill('900000');
    await h.shot(page, '20-channel-editor');
    await page.getByTestId('channel-form-submit').click();
    await page.getByTestId('channel-form').waitFor({ state: 'hidden' });
    await page.locator('[data-testid^="channel-row-"]').first().waitFor();
    await expect
      .poll(() => page.locator('[data-testid^="channel-row-"]').first().textContent())
      .toContain('mock-openai');
    await h.shot(page, '21-channels');
    const setting = await page.evaluate(async () => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}');
      const list = await (
        await fetch('/api/channel/?p=1&page_size=10', { headers: { 'New-Api-User': String(user.id) } })
      ).json();
      const id = list.data.items[0].id as number;
      return (await (await fetch(`/api/channel/${id}`, { headers: { 'New-Api-User': String(user.id) } })).json()).data
        .setting as string;
    });
    expect(JSON.parse(setting)).toEqual({ tpm_limit: 900000 });
  });

  /** The management API as the page's signed-in user. */
  const call = <T>(method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ([m, p, b]) => {
        const user = JSON.parse(localStorage.getItem('user') ?? '{}');
        const r = await fetch(p as string, {
          method: m as string,
          headers: {
            'New-Api-User': String(user.id),
            ...(b === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: b === undefined ? undefined : JSON.stringify(b),
        });
        return (await r.json()) as { success: boolean; message: string; data: T };
      },
      [method, path, body] as const,
    );

  it('edits a channel without sending its masked key back, shows the key after a password check, and copies it', async () => {
    const list = await call<{ items: { id: number; key: string }[] }>('GET', '/api/channel/?p=1&page_size=10');
    const id = list.data.items[0]!.id;
    expect(list.data.items[0]!.key).not.toContain('browser-mock-key');
    await page.getByTestId(`channel-edit-${id}`).click();
    const keyField = page.getByTestId('channel-form-key');
    await keyField.waitFor();
    expect(await keyField.inputValue()).toBe('');
    expect(await keyField.getAttribute('placeholder')).toContain('********');
    await page.getByTestId('channel-form-name').fill('mock-openai-edited');
    await page.getByTestId('channel-form-submit').click();
    await page.getByTestId('channel-form').waitFor({ state: 'hidden' });
    await expect
      .poll(async () => (await call<{ name: string }>('GET', `/api/channel/${id}`)).data.name)
      .toBe('mock-openai-edited');
    // Show key: refused until verified, so the console asks for the password, then fills the field.
    await page.getByTestId(`channel-edit-${id}`).click();
    await page.getByTestId('channel-key-show').click();
    await page.getByTestId('channel-key-verify-input').fill(ROOT.password);
    await h.shot(page, '20b-channel-key-verify');
    await page.getByTestId('channel-key-verify-ok').click();
    await expect.poll(() => page.getByTestId('channel-form-key').inputValue()).toBe('browser-mock-key');
    await h.shot(page, '20c-channel-key-shown');
    await page.getByTestId('channel-form-name').fill('mock-openai');
    await page.getByTestId('channel-form-submit').click();
    await page.getByTestId('channel-form').waitFor({ state: 'hidden' });
    const key = await call<{ key: string }>('POST', `/api/channel/${id}/key`, {});
    expect(key.data.key).toBe('browser-mock-key');
    // Copy (row action): the server copies the key; the copy is removed again for the tests after this one.
    await page.getByTestId(`channel-copy-${id}`).click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId(`channel-copy-confirm-${id}`).click();
    const copyOf = async () =>
      (
        await call<{ items: { id: number; name: string }[] }>('GET', '/api/channel/search?keyword=mock-openai')
      ).data.items.find((c) => c.id !== id && c.name.startsWith('mock-openai_'))?.id;
    await expect.poll(copyOf).toBeGreaterThan(id);
    const copyId = (await copyOf())!;
    expect((await call<{ key: string }>('POST', `/api/channel/${copyId}/key`, {})).data.key).toBe('browser-mock-key');
    expect((await call('DELETE', `/api/channel/${copyId}`)).success).toBe(true);
  });

  let key = '';
  it('creates a token in the token page', async () => {
    await page.goto('/app/tokens');
    await page.getByTestId('tokens-add').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('token-form-name').fill('browser-token');
    await page.getByTestId('token-form-submit').click();
    await page.locator('[data-testid^="token-row-"]').first().waitFor();
    await h.shot(page, '22-tokens');
    const id = (await call<{ items: { id: number }[] }>('GET', '/api/token/?p=1&size=10')).data.items[0]!.id;
    // The list shows the masked key; the eye asks the server for the full one.
    expect(await page.getByTestId(`token-key-${id}`).textContent()).toMatch(/^sk-[A-Za-z0-9]{4}\*{10}[A-Za-z0-9]{4}$/);
    await page.getByTestId(`token-key-show-${id}`).click();
    await expect.poll(() => page.getByTestId(`token-key-${id}`).textContent()).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    await h.shot(page, '22a-token-key-shown');
    key = ((await page.getByTestId(`token-key-${id}`).textContent()) ?? '').slice(3);
    // Copy key: the clipboard gets the full key.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByTestId(`token-copy-${id}`).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`sk-${key}`);
  });

  it('saves requests and tokens per minute in the token editor', async () => {
    const id = await page.evaluate(async () => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}');
      const r = await fetch('/api/token/?p=1&size=10', { headers: { 'New-Api-User': String(user.id) } });
      return (await r.json()).data.items[0].id as number;
    });
    await page.getByTestId(`token-edit-${id}`).click();
    await page.getByTestId('token-form-rpm').fill('120');
    await page.getByTestId('token-form-tpm').fill('50000');
    await h.shot(page, '22b-token-rate-limits');
    await page.getByTestId('token-form-submit').click();
    const saved = () =>
      page.evaluate(async (tokenId) => {
        const user = JSON.parse(localStorage.getItem('user') ?? '{}');
        const r = await fetch(`/api/token/${tokenId}`, { headers: { 'New-Api-User': String(user.id) } });
        const t = (await r.json()).data as { rpm_limit: number; tpm_limit: number };
        return [t.rpm_limit, t.tpm_limit];
      }, id);
    await expect.poll(saved).toEqual([120, 50000]);
    // Opened again, the editor shows what was saved.
    await page.getByTestId(`token-edit-${id}`).click();
    await expect.poll(() => page.getByTestId('token-form-tpm').inputValue()).toBe('50000');
    expect(await page.getByTestId('token-form-rpm').inputValue()).toBe('120');
    await page.keyboard.press('Escape');
  });

  it("offers new-api's cross-group retry switch on an auto-group token only, and saves it", async () => {
    const usable = JSON.stringify({ default: 'default', vip: 'vip', auto: 'auto' });
    expect((await call('PUT', '/api/option/', { key: 'UserUsableGroups', value: usable })).success).toBe(true);
    try {
      const id = (await call<{ items: { id: number }[] }>('GET', '/api/token/?p=1&size=10')).data.items[0]!.id;
      await page.reload();
      await page.getByTestId(`token-edit-${id}`).click();
      await page.getByTestId('token-form-group').waitFor();
      // Not an auto token: no switch.
      expect(await page.getByTestId('token-form-cross-group-retry').count()).toBe(0);
      await page.getByTestId('token-form-group').click();
      await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: /^auto/ }).click();
      const retry = page.getByTestId('token-form-cross-group-retry');
      await retry.click();
      await expect.poll(() => retry.getAttribute('aria-checked')).toBe('true');
      await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
      await h.shot(page, '22c-token-cross-group-retry');
      await page.getByTestId('token-form-submit').click();
      const saved = async () => {
        const t = (await call<{ group: string; cross_group_retry: boolean }>('GET', `/api/token/${id}`)).data;
        return [t.group, t.cross_group_retry];
      };
      await expect.poll(saved).toEqual(['auto', true]);
      // Back to the user's group: the switch goes and is saved off.
      await page.getByTestId(`token-edit-${id}`).click();
      await expect
        .poll(() => page.getByTestId('token-form-cross-group-retry').getAttribute('aria-checked'))
        .toBe('true');
      await page.getByTestId('token-form-group').click();
      await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().click();
      expect(await page.getByTestId('token-form-cross-group-retry').count()).toBe(0);
      await page.getByTestId('token-form-submit').click();
      await expect.poll(saved).toEqual(['', false]);
    } finally {
      const defaults = JSON.stringify({ default: 'default', vip: 'vip' });
      await call('PUT', '/api/option/', { key: 'UserUsableGroups', value: defaults });
    }
  });

  it('relays a call and shows the log row with its quota and the balance change', async () => {
    const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi from the browser test' }] }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
      'Hello from the mock!',
    );
    const row = await newestLogRow(page, 'gpt-4o-mini');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('$0.06');
    expect(text).toContain('browser-token');
    await h.shot(page, '23-usage-logs');
    await page.goto('/app/me');
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$9.94');
    await h.shot(page, '24-balance-after-call');
  });

  it('shows the model on the public pricing page', async () => {
    await page.goto('/pricing');
    await page.getByTestId('pricing-table').waitFor();
    await expect.poll(() => page.getByTestId('pricing-table').textContent()).toContain('gpt-4o-mini');
    await h.shot(page, '25-pricing');
  });

  it("shows each channel's breaker health in the channel list", async () => {
    const admin = (method: string, url: string, body: unknown) =>
      page.evaluate(
        async ([method, url, body]) => {
          const user = JSON.parse(localStorage.getItem('user') ?? '{}');
          const r = await fetch(url as string, {
            method: method as string,
            headers: { 'content-type': 'application/json', 'New-Api-User': String(user.id) },
            body: JSON.stringify(body),
          });
          return (await r.json()) as { success: boolean; data: unknown };
        },
        [method, url, body] as const,
      );
    expect((await admin('PUT', '/api/option/', { key: 'ChannelBreakerMinFailures', value: '2' })).success).toBe(true);
    expect((await admin('PUT', '/api/option/', { key: 'RetryTimes', value: '1' })).success).toBe(true);
    const created = await admin('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'flaky-upstream',
        type: 1,
        key: 'browser-faulty-key',
        base_url: mock.url,
        models: 'gpt-4o-mini',
        group: 'default',
        priority: 10,
      },
    });
    const faultyId = (created.data as { ids: number[] }).ids[0]!;
    mock.behaviors.set('browser-faulty-key', { failStatus: 502 });
    // A token of its own: the one above is held to its tokens-per-minute limit.
    const tokens = await admin('POST', '/api/token/', { name: 'health-token', unlimited_quota: true });
    expect(tokens.success).toBe(true);
    const healthKey = (tokens.data as { key: string }[])[0]!.key;
    // Both calls fail on the flaky channel and are retried on the healthy one: the breaker opens, the caller sees 200.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${healthKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
    }
    await page.goto('/admin/channels');
    const faulty = page.getByTestId(`channel-health-${faultyId}`);
    await faulty.waitFor();
    expect(await faulty.getAttribute('data-state')).toBe('open');
    const healthy = page.locator('[data-testid^="channel-health-"][data-state="closed"]');
    expect(await healthy.count()).toBe(1);
    await faulty.hover();
    const tip = page.locator('.ant-tooltip:visible');
    await expect.poll(() => tip.textContent()).toContain('100.0%');
    await h.shot(page, '26-channel-health');

    // The thresholds are on the operation settings page, next to automatic disabling, with the value set above.
    await page.goto('/admin/settings?tab=operation');
    const section = page.getByTestId('settings-section-monitoring');
    await section.scrollIntoViewIfNeeded();
    await expect.poll(() => page.getByTestId('option-ChannelBreakerMinFailures').inputValue()).toBe('2');
    expect(await page.getByTestId('option-ChannelBreakerCooldownSeconds').inputValue()).toBe('30');
    await section.screenshot({ path: `${SCREENSHOTS}/27-breaker-settings.png` });
  });
});
