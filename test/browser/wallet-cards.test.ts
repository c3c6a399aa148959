import type { BrowserContext, Page } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockPayments, type MockPayments } from '../../packages/server/test/support/mock-payments.js';
import { login, pageApi, setOptions, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'cardroot', password: 'card-root-pass-1' };
const WEBHOOK_SECRET = 'whsec_browser';
const UNIT = 500_000;
const PRODUCT = { productId: 'prod_pack', name: 'Pack', price: 9.99, currency: 'USD', quota: 5_000_000 };

/**
 * The wallet's card payments in a real browser: with Stripe and Creem configured their buttons show, Stripe's
 * answers the Checkout page (intercepted here) from the mock Stripe API, and the signed webhook credits the balance.
 */
describe('wallet card payments in Chromium', () => {
  let h: Harness;
  let mock: MockPayments;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    mock = await startMockPayments();
    h = await startHarness({ STRIPE_API_BASE: mock.url, CREEM_API_BASE: mock.url });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    ({ context, page } = await h.newPage());
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('shows the Stripe and Creem buttons once configured; Stripe opens Checkout and the webhook credits', async () => {
    await setOptions(page, [
      ['ServerAddress', h.baseUrl],
      ['StripeApiSecret', 'sk_test_browser'],
      ['StripeWebhookSecret', WEBHOOK_SECRET],
      ['StripePriceId', 'price_unit'],
      ['StripeUnitPrice', '8'],
      ['CreemApiKey', 'creem_browser'],
      ['CreemProducts', JSON.stringify([PRODUCT])],
    ]);
    const quota = async () => (await pageApi<{ quota: number }>(page, 'GET', '/api/user/self')).data!.quota;
    const before = await quota();
    await page.goto('/app/wallet');
    await page.getByTestId('topup-creem-prod_pack').waitFor();
    expect(await page.getByTestId('topup-creem-prod_pack').textContent()).toContain('Pack');
    // Epay is off: Stripe is the only amount method, and its price is the payable amount.
    await page.getByTestId('topup-amount').fill('10');
    await expect.poll(() => page.getByTestId('topup-payable').textContent()).toBe('With Stripe: 80.00');
    expect(await page.getByTestId('topup-pay-zfb').count()).toBe(0);

    await context.route('https://checkout.stripe.com/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Stripe test checkout</h1>' }),
    );
    const popup = context.waitForEvent('page');
    await page.getByTestId('topup-pay-stripe').click();
    const checkout = await popup;
    await checkout.waitForLoadState();
    expect(checkout.url()).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    await checkout.close();
    const reference = String(mock.calls.at(-1)!.body.client_reference_id);
    expect(mock.calls.at(-1)!.body['line_items[0][quantity]']).toBe('10');

    const payload = JSON.stringify({
      id: 'evt_browser',
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          object: 'checkout.session',
          client_reference_id: reference,
          status: 'complete',
          payment_status: 'paid',
        },
      },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${h.baseUrl}/api/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
      expect(res.status).toBe(200);
    }
    await page.goto('/app/wallet');
    // Delivered twice, credited once: ten units.
    expect(await quota()).toBe(before + 10 * UNIT);
    const records = page.getByTestId('topup-records');
    await expect.poll(() => records.textContent()).toContain(reference);
    expect(await records.textContent()).toContain('Success');
    await h.shot(page, '54-wallet-cards');
  });
});
