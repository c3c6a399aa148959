import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseMenuItem, motionSettled, type Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'redroot', password: 'red-root-pass-1' };
const USER = { username: 'redeemer', password: 'redeemer-pass-1' };

async function login(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  // The first load of the console can be slow on a loaded machine.
  await page.getByTestId('login-username').waitFor({ timeout: 30_000 });
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

/** Calls the management API from the page with its session (as the console does). */
/**
 * Closes the open dialog with Escape and waits until no dialog covers the page (its wrapper gone after the closing
 * animation). Escape is pressed again while one is still shown: a press that lands before the dialog has taken focus
 * does nothing.
 */
async function closeDialogs(page: Page): Promise<void> {
  // A page in the background may not run its animations; the closing one must finish.
  await page.bringToFront();
  await expect
    .poll(
      async () => {
        const open = await page.locator('.ant-modal-wrap:visible').count();
        if (open > 0) await page.keyboard.press('Escape');
        return open;
      },
      { timeout: 15_000, interval: 300 },
    )
    .toBe(0);
}

function apiFromPage<T>(
  page: Page,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ success: boolean; message: string; data: T }> {
  return page.evaluate(
    async ([m, u, b]) => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}');
      const headers: Record<string, string> = { 'New-Api-User': String(user.id) };
      if (b !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(u as string, {
        method: m as string,
        headers,
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return r.json();
    },
    [method, url, body] as const,
  );
}

/**
 * Issue 5 in a real browser: an administrator creates a batch of codes on /admin/coupons and gets them as a
 * downloaded text file; a user opens the wallet with ?code=, redeems one and sees the balance grow.
 */
describe('redemption codes in Chromium', () => {
  let h: Harness;
  let admin: Page;
  let keys: string[] = [];
  beforeAll(async () => {
    // A private copy of the console: a rebuild during the run must not pull its chunks away.
    h = await startPrivateHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    ({ page: admin } = await h.newPage());
    await login(admin, ROOT);
    const made = await apiFromPage(admin, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    expect(made.success).toBe(true);
  });
  afterAll(async () => h?.close());

  it('creates three $10 codes and downloads them as a text file, one key per line', async () => {
    await admin.goto('/admin/coupons');
    await admin.getByTestId('redemptions-add').click();
    await motionSettled(admin); // until it has opened: a click while it still moves can miss
    await admin.getByTestId('redemption-form-name').fill('browser-batch');
    await admin.getByTestId('redemption-form-preset-10').click();
    const count = admin.getByTestId('redemption-form-count');
    await count.fill('3');
    await h.shot(admin, '70-redemption-editor');
    const download = admin.waitForEvent('download');
    await admin.getByTestId('redemption-form-submit').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('browser-batch-codes.txt');
    const text = fs.readFileSync((await file.path())!, 'utf8');
    keys = text.trim().split('\n');
    expect(keys).toHaveLength(3);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9]{32}$/);

    // The downloaded lines are exactly the stored codes of this batch.
    const listed = await apiFromPage<{ items: { key: string; name: string; quota: number; status: number }[] }>(
      admin,
      'GET',
      '/api/redemption/search?keyword=browser-batch',
    );
    expect(listed.data.items.map((r) => r.key).sort()).toEqual([...keys].sort());
    for (const r of listed.data.items) expect(r).toMatchObject({ name: 'browser-batch', quota: 5_000_000, status: 1 });

    await admin.getByTestId('redemptions-created-keys').waitFor();
    expect(await admin.getByTestId('redemptions-created-keys').inputValue()).toBe(keys.join('\n'));
    await h.shot(admin, '71-redemption-created');
    await closeDialogs(admin);
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').count()).toBe(3);
    await h.shot(admin, '72-redemption-list');
  });

  it('refuses bulk disable without a selection, then searches, disables and deletes one code', async () => {
    await chooseMenuItem(
      admin.getByTestId('redemptions-bulk'),
      admin.getByTestId('redemptions-bulk-disable'),
      admin.getByText('Please select at least one redemption code!').or(admin.getByText('请至少选择一个兑换码！')),
    );

    await admin.getByTestId('redemptions-search').fill(keys[2]!);
    await admin.getByTestId('redemptions-search-submit').click();
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').count()).toBe(1);
    const row = admin.locator('[data-testid^="redemption-row-"]').first();
    const id = (await row.getAttribute('data-testid'))!.replace('redemption-row-', '');
    await admin.getByTestId(`redemption-toggle-${id}`).click();
    await expect.poll(() => admin.getByTestId(`redemption-status-${id}`).textContent()).toMatch(/Disabled|已禁用/);
    await h.shot(admin, '73-redemption-disabled');

    // Delete it after the confirmation.
    await admin.getByTestId(`redemption-delete-${id}`).click();
    await motionSettled(admin); // until it has opened: a click while it still moves can miss
    await admin.getByTestId(`redemption-delete-confirm-${id}`).click();
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').count()).toBe(0);
    expect((await apiFromPage(admin, 'GET', `/api/redemption/${id}`)).success).toBe(false);
  });

  it('edits an unused code in the drawer', async () => {
    await admin.getByTestId('redemptions-search').fill(keys[1]!);
    await admin.getByTestId('redemptions-search-submit').click();
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').count()).toBe(1);
    const id = (await admin.locator('[data-testid^="redemption-row-"]').first().getAttribute('data-testid'))!.replace(
      'redemption-row-',
      '',
    );
    await admin.getByTestId(`redemption-edit-${id}`).click();
    const name = admin.getByTestId('redemption-form-name');
    await expect.poll(() => name.inputValue()).toBe('browser-batch');
    await name.fill('renamed');
    await admin.getByTestId('redemption-form-submit').click();
    await expect.poll(() => admin.getByTestId(`redemption-row-${id}`).textContent()).toContain('renamed');
    const got = await apiFromPage<{ name: string; key: string; quota: number }>(admin, 'GET', `/api/redemption/${id}`);
    expect(got.data).toMatchObject({ name: 'renamed', key: keys[1], quota: 5_000_000 });
  });

  it('creates a gift code with max uses and an expiry, and refuses an expiry before the start', async () => {
    // A search clicked while a refresh is in flight is not lost: the button shows the fetch but takes the click.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await admin.route(
      '**/api/redemption/search?*',
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await admin.getByTestId('redemptions-refresh').click();
    await expect.poll(() => admin.getByTestId('redemptions-search-submit').getAttribute('aria-busy')).toBe('true');
    await admin.getByTestId('redemptions-search').fill('');
    await admin.getByTestId('redemptions-search-submit').click();
    release();
    // The list is unfiltered again (both codes left) before the new code is added to it.
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').count()).toBe(2);
    await admin.getByTestId('redemptions-add').click();
    await motionSettled(admin); // until it has opened: a click while it still moves can miss
    await admin.getByTestId('redemption-form-name').fill('gift-five');
    await admin.getByTestId('redemption-form-gift').click();
    await admin.getByTestId('redemption-form-max-uses').fill('5');
    const from = admin.getByTestId('redemption-form-valid-from');
    await from.click();
    await from.fill('2099-01-02 00:00:00');
    await from.press('Enter');
    const until = admin.getByTestId('redemption-form-valid-until');
    await until.click();
    await until.fill('2099-01-01 00:00:00');
    await until.press('Enter');
    await admin.getByTestId('redemption-form-submit').click();
    await admin
      .getByText('Effective time must be earlier than expiry time')
      .or(admin.getByText('生效时间必须早于过期时间'))
      .waitFor();
    await h.shot(admin, '77-redemption-gift-window');

    await until.click();
    await until.fill('2099-12-31 00:00:00');
    await until.press('Enter');
    const download = admin.waitForEvent('download');
    await admin.getByTestId('redemption-form-submit').click();
    const lines = fs
      .readFileSync((await (await download).path())!, 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(1);
    // The download starts before the keys dialog renders: close it only once it is open, and wait until it is gone.
    const createdKeys = admin.getByTestId('redemptions-created-keys');
    await createdKeys.waitFor({ state: 'visible' });
    await closeDialogs(admin);
    const expected = await admin.evaluate(() => [
      new Date(2099, 0, 2).getTime() / 1000,
      new Date(2099, 11, 31).getTime() / 1000,
    ]);
    const listed = await apiFromPage<{ items: Record<string, unknown>[] }>(
      admin,
      'GET',
      '/api/redemption/search?keyword=gift-five',
    );
    expect(listed.data.items).toHaveLength(1);
    expect(listed.data.items[0]).toMatchObject({
      key: lines[0],
      is_gift: true,
      max_uses: 5,
      used_count: 0,
      valid_from: expected[0],
      valid_until: expected[1],
      quota: 100000,
    });
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').first().textContent()).toContain('0 / 5');
    await h.shot(admin, '78-redemption-gift-row');
  });

  it('lets a user redeem a code from the wallet link (?code=) and shows the new balance', async () => {
    const { page } = await h.newPage();
    await login(page, USER);
    await page.goto(`/app/wallet?code=${keys[0]}`);
    const input = page.getByTestId('redeem-input');
    await expect.poll(() => input.inputValue()).toBe(keys[0]);
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$0.00');
    await page.getByTestId('redeem-button').click();
    await expect.poll(() => page.getByTestId('redeem-result').textContent()).toContain('$10.00');
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$10.00');
    expect(await input.inputValue()).toBe('');
    await h.shot(page, '74-wallet-redeemed');

    // The same code again: the refusal is shown in the console's language and the balance does not move.
    await input.fill(keys[0]!);
    await page.getByTestId('redeem-button').click();
    await page.getByText('该兑换码已被使用').first().waitFor();
    await page.getByTestId('redeem-result').waitFor({ state: 'detached' });
    // The error toast slides in above the earlier success toast; let it finish before the picture.
    await page.waitForTimeout(800);
    const self = await apiFromPage<{ quota: number }>(page, 'GET', '/api/user/self');
    expect(self.data.quota).toBe(5_000_000);
    await h.shot(page, '75-wallet-redeem-used');
    await page.context().close();

    // The admin's list shows the code as used, with the redeemer's id (no dialog left over the list).
    await closeDialogs(admin);
    await admin.getByTestId('redemptions-search').fill('');
    await admin.getByTestId('redemptions-search-submit').click();
    const used = await apiFromPage<{ items: { id: number; key: string; status: number; used_user_id: number }[] }>(
      admin,
      'GET',
      '/api/redemption/',
    );
    const row = used.data.items.find((r) => r.key === keys[0])!;
    expect(row.status).toBe(3);
    expect(row.used_user_id).toBeGreaterThan(0);
    await expect.poll(() => admin.getByTestId(`redemption-status-${row.id}`).textContent()).toMatch(/Used|已使用/);
    // A used code can be neither edited nor enabled again.
    expect(await admin.getByTestId(`redemption-edit-${row.id}`).isDisabled()).toBe(true);
    expect(await admin.getByTestId(`redemption-toggle-${row.id}`).isDisabled()).toBe(true);
    expect(await admin.getByTestId(`redemption-toggle-${row.id}`).getAttribute('aria-checked')).toBe('false');
    expect(await admin.getByTestId(`redemption-user-${row.id}`).textContent()).toContain(String(row.used_user_id));
    // Let the switch finish its animation from on to off before the picture.
    await admin.waitForTimeout(500);
    await h.shot(admin, '76-redemption-used');

    // The same list on a phone.
    const { page: phone } = await h.newPage({ mobile: true });
    await login(phone, ROOT);
    await phone.goto('/admin/coupons');
    await phone.getByTestId(`redemption-row-${row.id}`).waitFor();
    await h.shot(phone, '79-redemption-mobile');
    await phone.context().close();
  });

  it('deletes every code nobody can redeem any more from the bulk menu (used, disabled, expired)', async () => {
    const expiredKey = (
      await apiFromPage<string[]>(admin, 'POST', '/api/redemption/', {
        name: 'gone-expired',
        quota: 1000,
        expired_time: Math.floor(Date.now() / 1000) - 60,
      })
    ).data[0];
    const disabledKey = (
      await apiFromPage<string[]>(admin, 'POST', '/api/redemption/', { name: 'gone-disabled', quota: 1000 })
    ).data[0];
    const listed = await apiFromPage<{
      items: { id: number; key: string; expired_time: number; valid_until: number }[];
    }>(admin, 'GET', '/api/redemption/?page_size=100');
    const disabled = listed.data.items.find((r) => r.key === disabledKey)!;
    expect(
      (await apiFromPage(admin, 'PUT', '/api/redemption/?status_only=true', { id: disabled.id, status: 2 })).success,
    ).toBe(true);
    // new-api's expired_time is the same expiry as valid_until.
    const expired = listed.data.items.find((r) => r.key === expiredKey)!;
    expect(expired.expired_time).toBe(expired.valid_until);

    await admin.getByTestId('redemptions-refresh').click();
    await chooseMenuItem(
      admin.getByTestId('redemptions-bulk'),
      admin.getByTestId('redemptions-bulk-delete-invalid'),
      admin.getByTestId('redemptions-delete-invalid-confirm'),
    );
    await h.shot(admin, '80-redemption-delete-invalid-confirm');
    await admin.getByTestId('redemptions-delete-invalid-confirm').click();
    await admin.getByText('3 codes deleted').or(admin.getByText('已删除 3 个兑换码')).waitFor();
    const left = await apiFromPage<{ items: { key: string; name: string }[] }>(
      admin,
      'GET',
      '/api/redemption/?page_size=100',
    );
    expect(left.data.items.map((r) => r.name).sort()).toEqual(['gift-five', 'renamed']);
    await expect.poll(() => admin.locator('[data-testid^="redemption-row-"]').count()).toBe(2);
    await admin.getByTestId('redemptions-delete-invalid-confirm').waitFor({ state: 'hidden' });
    await h.shot(admin, '81-redemption-invalid-deleted');
  });
});
