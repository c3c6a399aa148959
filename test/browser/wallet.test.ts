import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epaySign, epayVerify } from '../../packages/server/src/modules/topup/epay.js';
import { startHarness, type Harness } from './harness.js';

const ROOT = { username: 'walletroot', password: 'wallet-root-pass-1' };
const EPAY = { address: 'https://pay.example.com', pid: '1001', key: 'browser-epay-key' };

/** Logs in as the root user in English; the session belongs to the page's context. */
async function login(context: BrowserContext, page: Page): Promise<void> {
  await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
  await page.goto('/login');
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill(ROOT.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

/**
 * The wallet in a real browser: balance, why online top-up is off, then with Epay configured the payable
 * amount following the amount typed, the signed form posted to the payment site (intercepted here), the
 * payment notify crediting the balance, and the record in the table.
 */
describe('wallet page in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;
  let page: Page;
  const api = (method: string, url: string, body?: unknown) =>
    page.evaluate(
      async ([m, u, b]) => {
        const user = JSON.parse(localStorage.getItem('user') ?? '{}');
        const r = await fetch(u as string, {
          method: m as string,
          headers: { 'content-type': 'application/json', 'New-Api-User': String(user.id) },
          body: b === undefined ? undefined : JSON.stringify(b),
        });
        return (await r.json()) as { success: boolean; message: string };
      },
      [method, url, body] as const,
    );
  beforeAll(async () => {
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    ({ context, page } = await h.newPage());
    await login(context, page);
    const self = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? '{}').id as number);
    expect((await api('PUT', '/api/user/', { id: self, quota: 5_000_000 })).success).toBe(true);
  });
  afterAll(async () => h?.close());

  it('shows the balance and why online top-up is off', async () => {
    await page.goto('/app/wallet');
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$10.00');
    await page.getByTestId('topup-disabled').waitFor();
    expect(await page.getByTestId('topup-disabled').textContent()).toContain(
      'The administrator has not enabled online top-up',
    );
    await page.getByTestId('redeem-card').waitFor();
    await page.getByTestId('topup-buy-code').click();
    await page.getByText('The super administrator has not set a top-up link!').waitFor();
    await h.shot(page, '50-wallet-topup-off');
  });

  it('with Epay configured, the payable amount follows the amount', async () => {
    const options: Record<string, string> = {
      PayAddress: EPAY.address,
      EpayId: EPAY.pid,
      EpayKey: EPAY.key,
      ServerAddress: h.baseUrl,
      Price: '7.3',
      MinTopUp: '2',
    };
    for (const [key, value] of Object.entries(options))
      expect((await api('PUT', '/api/option/', { key, value })).success).toBe(true);
    await page.goto('/app/wallet');
    const payable = page.getByTestId('topup-payable');
    // The first preset (5, the smallest at or above the minimum 2) is chosen: 5 × 7.3.
    await expect.poll(() => payable.textContent()).toBe('¥36.50');
    const amount = page.getByTestId('topup-amount');
    await amount.fill('12');
    await expect.poll(() => payable.textContent()).toBe('¥87.60');
    await page.getByTestId('topup-preset-20').click();
    await expect.poll(() => payable.textContent()).toBe('¥146.00');
    await amount.fill('1');
    await expect.poll(() => payable.textContent()).toBe('The top-up amount cannot be less than 2');
    await amount.fill('10');
    await expect.poll(() => payable.textContent()).toBe('¥73.00');
    await page.mouse.move(0, 0);
    await h.shot(page, '51-wallet-topup');
  });

  it('posts the signed form to the payment site; the notify credits the balance and the record shows', async () => {
    let posted = '';
    await context.route(`${EPAY.address}/**`, (route) => {
      posted = route.request().postData() ?? '';
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Epay test cashier</h1>' });
    });
    const popup = context.waitForEvent('page');
    await page.getByTestId('topup-pay-zfb').click();
    const cashier = await popup;
    await cashier.waitForLoadState();
    expect(cashier.url()).toBe(`${EPAY.address}/submit.php`);
    const fields = Object.fromEntries(new URLSearchParams(posted));
    expect(fields).toMatchObject({
      pid: EPAY.pid,
      type: 'alipay',
      money: '73.00',
      name: 'TUC10',
      notify_url: `${h.baseUrl}/api/user/epay/notify`,
      sign_type: 'MD5',
    });
    expect(epayVerify(fields, EPAY.key)).toBe(true);
    await cashier.close();

    // Epay tells the server the order is paid.
    const notify: Record<string, string> = {
      pid: EPAY.pid,
      trade_no: '2026112299990001',
      out_trade_no: fields.out_trade_no!,
      type: 'alipay',
      name: fields.name!,
      money: fields.money!,
      trade_status: 'TRADE_SUCCESS',
    };
    const query = new URLSearchParams({ ...notify, sign: epaySign(notify, EPAY.key), sign_type: 'MD5' });
    expect(await (await fetch(`${h.baseUrl}/api/user/epay/notify?${query}`)).text()).toBe('success');

    await page.goto('/app/wallet');
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$20.00');
    const records = page.getByTestId('topup-records');
    await expect.poll(() => records.textContent()).toContain(fields.out_trade_no!);
    expect(await records.textContent()).toContain('Success');
    expect(await records.textContent()).toContain('¥73.00');
    await h.shot(page, '52-wallet-after-payment');
  });

  it('fits a phone screen', async () => {
    const { context: mobile, page: m } = await h.newPage({ mobile: true });
    await login(mobile, m);
    await m.goto('/app/wallet');
    await expect.poll(() => m.getByTestId('topup-payable').textContent()).toBe('¥36.50');
    // Nothing wider than the screen: the page does not scroll sideways.
    expect(await m.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await h.shot(m, '53-wallet-mobile');
    await mobile.close();
  });
});
