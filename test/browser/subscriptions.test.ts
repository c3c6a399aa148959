import type { SubscriptionPlan, SubscriptionSelf, UserSubscription } from '@tollway/shared';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epaySign, epayVerify } from '../../packages/server/src/modules/topup/epay.js';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, setUpRoot, type Session } from './api-session.js';
import { axeFindings, describeFindings } from './axe.js';
import {
  chooseOption,
  clickWhenIdle,
  motionSettled,
  pageApi,
  PAGE_ACTION_TIMEOUT_MS,
  SCREENSHOTS,
  type Harness,
} from './harness.js';
import { signIn, startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'subroot', password: 'sub-root-pass-1' };
const USER = { username: 'subuser', password: 'sub-user-pass-1' };
/** The user's starting balance: $20 at 500000 quota per dollar. */
const START_QUOTA = 10_000_000;
const QUOTA_PER_DOLLAR = 500_000;
/** The plan bought with the balance: price 2.345678 dollars costs exactly 2.345678 × 500000 quota. */
const STARTER = { title: 'Starter week', price: 2.345678, cost: 1_172_839 };
/** A relay call through the mock upstream: its tokens at this ratio cost a visible share of the plan's $10. */
const MODEL = 'gpt-4o-mini';
const MODEL_RATIO = 15;
const CALL = { promptTokens: 100_000, completionTokens: 20_000 };
const EPAY = { address: 'https://pay.example.com', pid: '1001', key: 'browser-epay-key' };

/** Opens an English page of `who`, signed in through the login form; axe-core may be injected (CSP bypassed). */
async function pageOf(h: Harness, who: { username: string; password: string }): Promise<Page> {
  const context = await h.browser.newContext({
    baseURL: h.baseUrl,
    viewport: { width: 1366, height: 860 },
    deviceScaleFactor: 1,
    bypassCSP: true,
  });
  await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  await signIn(page, who);
  return page;
}

/** A picture of one part of the page (a full-page shot of a scrolled page repeats the fixed header). */
async function photograph(part: Locator, name: string): Promise<void> {
  await part
    .page()
    .waitForLoadState('networkidle')
    .catch(() => undefined);
  await part.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: 'disabled' });
}

/** No critical or serious accessibility finding on the page as it is now. */
async function expectAccessible(page: Page, label: string): Promise<void> {
  expect(describeFindings(await axeFindings(page, label))).toEqual([]);
}

/** Picks an option of the antd select with test id `testid` by its text. */
async function choose(page: Page, testid: string, text: string): Promise<void> {
  await chooseOption(page, page.getByTestId(testid), text);
}

/** The text of the form error under the drawer's field (antd's explain line), once one shows. */
const formErrors = (page: Page) => page.getByTestId('plan-drawer').locator('.ant-form-item-explain-error');

/**
 * Subscription plans in the console: an administrator creates a plan on /admin/subscriptions (refused values named),
 * switches it off and on, and binds it to a user from the users table (invalidate and delete confirmed there too);
 * the user sees it with its bar on the wallet page, changes the billing order and buys a second plan with the
 * wallet balance, which drops by exactly price × QuotaPerUnit.
 */
describe('subscription plans in Chromium', () => {
  let h: Harness;
  let root: Session;
  let mock: MockUpstream;
  let userSession: Session;
  let userId: number;
  let admin: Page;
  let user: Page;
  let proId: number;
  let starterId: number;
  const adminPlans = async () =>
    (await apiAs<{ plan: SubscriptionPlan }[]>(root, 'GET', '/api/subscription/admin/plans')).map((p) => p.plan);
  const userSubs = async () =>
    (
      await apiAs<{ subscription: UserSubscription }[]>(
        root,
        'GET',
        `/api/subscription/admin/users/${userId}/subscriptions`,
      )
    ).map((s) => s.subscription);

  beforeAll(async () => {
    h = await startPrivateHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    userSession = await loginSession(h.baseUrl, USER);
    userId = userSession.id;
    await apiAs(root, 'PUT', '/api/user/', { id: userId, quota: START_QUOTA });
    admin = await pageOf(h, ROOT);
    user = await pageOf(h, USER);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('hides the wallet card while there is no plan and no subscription', async () => {
    const answered = user.waitForResponse((r) => r.url().endsWith('/api/subscription/plans'));
    await user.goto('/app/wallet');
    expect((await answered).ok()).toBe(true);
    await user.getByTestId('topup-card').waitFor();
    await user.waitForLoadState('networkidle');
    expect(await user.getByTestId('subscription-card').count()).toBe(0);
  });

  it('an administrator creates a plan in the drawer; refused values are named', async () => {
    await admin.goto('/admin/subscriptions');
    await admin.getByTestId('plans-add').click();
    await admin.getByTestId('plan-form-title').waitFor();
    // Nothing typed: the name is required.
    await admin.getByTestId('plan-form-submit').click();
    await expect
      .poll(() => formErrors(admin).allTextContents())
      .toEqual(['A name is required, at most 128 characters']);
    await admin.getByTestId('plan-form-title').fill('Pro monthly');
    await admin.getByTestId('plan-form-subtitle').fill('For daily work');
    await admin.getByTestId('plan-form-price').fill('9.1234567');
    await admin.getByTestId('plan-form-total-amount').fill('5000000');
    await choose(admin, 'plan-form-reset-period', 'Daily');
    await admin.getByTestId('plan-form-submit').click();
    await expect.poll(() => formErrors(admin).allTextContents()).toEqual(['The price has at most 6 decimals']);
    await admin.getByTestId('plan-form-price').fill('9.9');
    await clickWhenIdle(admin.getByTestId('plan-form-submit'));
    await admin.getByTestId('plan-drawer').waitFor({ state: 'hidden' });

    await expect.poll(async () => (await adminPlans()).map((p) => p.title)).toEqual(['Pro monthly']);
    const [pro] = await adminPlans();
    proId = pro!.id;
    expect(pro).toMatchObject({
      price_amount: 9.9,
      duration_unit: 'month',
      duration_value: 1,
      total_amount: 5_000_000,
      quota_reset_period: 'daily',
      enabled: true,
      allow_balance_pay: true,
    });
    const row = admin.getByTestId(`plan-row-${proId}`);
    await expect.poll(() => row.textContent()).toContain('Pro monthly');
    expect(await admin.getByTestId(`plan-price-${proId}`).textContent()).toBe('$9.90');
    expect(await admin.getByTestId(`plan-quota-${proId}`).textContent()).toBe('$10.00Resets daily');
    expect(await row.textContent()).toContain('1 month');
  });

  it('switches the plan off and on; only an enabled plan is on sale', async () => {
    const toggle = admin.getByTestId(`plan-enabled-${proId}`);
    const onSale = async () =>
      (await apiAs<{ plan: SubscriptionPlan }[]>(root, 'GET', '/api/subscription/plans')).map((p) => p.plan.id);
    await clickWhenIdle(toggle);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    await expect.poll(async () => (await adminPlans())[0]!.enabled).toBe(false);
    expect(await onSale()).toEqual([]);
    await clickWhenIdle(toggle);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    await expect.poll(onSale).toEqual([proId]);
    // A second plan, bought later with the balance.
    const starter = await apiAs<SubscriptionPlan>(root, 'POST', '/api/subscription/admin/plans', {
      plan: {
        title: STARTER.title,
        price_amount: STARTER.price,
        duration_unit: 'day',
        duration_value: 7,
        total_amount: 1_000_000,
        quota_reset_period: 'never',
        allow_balance_pay: true,
      },
    });
    starterId = starter.id;
    await admin.getByTestId('plans-refresh').click();
    await admin.getByTestId(`plan-row-${starterId}`).waitFor();
    await admin.mouse.move(0, 0);
    await h.shot(admin, 'subscriptions-admin-plans');
    await expectAccessible(admin, 'admin plans');
  });

  it('binds the plan to a user from the users table; invalidates and deletes with confirmation', async () => {
    await admin.goto('/admin/users');
    await admin.getByTestId(`user-action-subscriptions-${userId}`).click();
    await admin.getByTestId('sub-bind-select').waitFor();
    const rows = admin.locator('[data-testid^="sub-row-"]');
    await choose(admin, 'sub-bind-select', 'Pro monthly');
    await clickWhenIdle(admin.getByTestId('sub-bind-submit'));
    await expect.poll(() => rows.count()).toBe(1);
    const [bound] = await userSubs();
    expect(bound).toMatchObject({ plan_id: proId, status: 'active', amount_total: 5_000_000, amount_used: 0 });
    const row = admin.getByTestId(`sub-row-${bound!.id}`);
    expect(await row.textContent()).toContain('Pro monthly');
    expect(await row.textContent()).toContain('$0.00 / $10.00');
    expect(await row.textContent()).toContain('Active');

    // A second binding, invalidated then deleted.
    await choose(admin, 'sub-bind-select', STARTER.title);
    await clickWhenIdle(admin.getByTestId('sub-bind-submit'));
    await expect.poll(() => rows.count()).toBe(2);
    const extra = (await userSubs()).find((s) => s.plan_id === starterId)!;
    await admin.getByTestId(`sub-invalidate-${extra.id}`).click();
    await motionSettled(admin); // until it has opened: a click while it still moves can miss
    await admin.getByTestId(`sub-invalidate-confirm-${extra.id}`).click();
    await expect.poll(async () => (await userSubs()).find((s) => s.id === extra.id)?.status).toBe('cancelled');
    await expect.poll(() => admin.getByTestId(`sub-row-${extra.id}`).textContent()).toContain('Cancelled');
    await admin.mouse.move(0, 0);
    await h.shot(admin, 'subscriptions-user-modal');
    await expectAccessible(admin, 'user subscriptions dialog');
    await admin.getByTestId(`sub-delete-${extra.id}`).click();
    await motionSettled(admin); // until it has opened: a click while it still moves can miss
    await admin.getByTestId(`sub-delete-confirm-${extra.id}`).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect((await userSubs()).map((s) => s.id)).toEqual([bound!.id]);
  });

  it('a relay call of the user draws from the bound plan, not the wallet', async () => {
    mock = await startMockUpstream();
    mock.behaviors.set('sub-mock-key', CALL);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: MODEL_RATIO }) });
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'sub-mock', type: 1, key: 'sub-mock-key', base_url: mock.url, models: MODEL, group: 'default' },
    });
    const [token] = await apiAs<{ key: string }[]>(userSession, 'POST', '/api/token/', {
      name: 'sub-token',
      unlimited_quota: true,
    });
    const key = token!.key.startsWith('sk-') ? token!.key : `sk-${token!.key}`;
    const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    await expect.poll(async () => (await userSubs())[0]!.amount_used).toBeGreaterThan(0);
    const [sub] = await userSubs();
    // A share of the plan, well under its total; the wallet is untouched.
    expect(sub!.amount_used).toBeLessThan(sub!.amount_total);
    expect((await apiAs<{ quota: number }>(userSession, 'GET', '/api/user/self')).quota).toBe(START_QUOTA);
  });

  it('the user sees the plan with its bar, sets the billing order and buys a plan with the balance', async () => {
    await user.goto('/app/wallet');
    const card = user.getByTestId('subscription-card');
    await card.waitFor();
    const [sub] = await userSubs();
    const mine = user.getByTestId(`my-sub-${sub!.id}`);
    await expect.poll(() => mine.textContent()).toContain('Pro monthly');
    const used = `$${(sub!.amount_used / QUOTA_PER_DOLLAR).toFixed(2)}`;
    expect(await user.getByTestId(`my-sub-usage-${sub!.id}`).textContent()).toBe(`${used} / $10.00`);
    const bar = user.getByTestId(`my-sub-progress-${sub!.id}`);
    const percent = Math.round((sub!.amount_used / sub!.amount_total) * 1000) / 10;
    // antd's bar is the progressbar itself, its value the used share.
    expect(await bar.getAttribute('role')).toBe('progressbar');
    expect(await bar.getAttribute('aria-valuenow')).toBe(String(percent));
    expect(await user.getByTestId(`my-sub-reset-${sub!.id}`).textContent()).toMatch(/^Next reset: \d{4}-\d\d-\d\d/);
    expect(await user.getByTestId(`offer-${starterId}`).textContent()).toContain('$2.345678 / 7 days');

    // The billing order, read back through the API.
    const preference = async () =>
      (await pageApi<SubscriptionSelf>(user, 'GET', '/api/subscription/self')).data!.billing_preference;
    expect(await preference()).toBe('subscription_first');
    await choose(user, 'sub-preference', 'Wallet first, then subscription');
    await expect.poll(preference).toBe('wallet_first');

    // Bought with the balance: exactly price × QuotaPerUnit is taken.
    const quota = async () => (await pageApi<{ quota: number }>(user, 'GET', '/api/user/self')).data!.quota;
    const before = await quota();
    expect(before).toBe(START_QUOTA);
    await user.getByTestId(`offer-buy-${starterId}`).click();
    const cost = user.getByTestId('buy-balance-cost');
    await expect.poll(() => cost.textContent()).toBe('$2.35 is taken from your wallet (balance $20.00)');
    await user.mouse.move(0, 0);
    await photograph(
      user.getByRole('dialog').filter({ has: user.getByTestId('buy-pay-balance') }),
      'subscriptions-buy-dialog',
    );
    await clickWhenIdle(user.getByTestId('buy-pay-balance'));
    await user.getByTestId('buy-plan-modal').waitFor({ state: 'hidden' });
    await expect.poll(quota).toBe(START_QUOTA - STARTER.cost);
    const active = async () =>
      (await pageApi<SubscriptionSelf>(user, 'GET', '/api/subscription/self')).data!.subscriptions.map(
        (s) => s.subscription.plan_id,
      );
    expect((await active()).sort()).toEqual([proId, starterId].sort());
    await expect.poll(() => card.locator('[data-testid^="my-sub-progress-"]').count()).toBe(2);
    await expect.poll(() => user.getByTestId('me-quota').textContent()).toContain('$17.65');
    await user.mouse.move(0, 0);
    await photograph(card, 'subscriptions-wallet-card');
    await expectAccessible(user, 'wallet card');
  });
  it('buys a plan through Epay: the signed form goes to the cashier and the notify grants the plan', async () => {
    for (const [key, value] of Object.entries({
      PayAddress: EPAY.address,
      EpayId: EPAY.pid,
      EpayKey: EPAY.key,
      ServerAddress: h.baseUrl,
    }))
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    let posted = '';
    await user.context().route(`${EPAY.address}/**`, (route) => {
      posted = route.request().postData() ?? '';
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Epay test cashier</h1>' });
    });
    await user.goto('/app/wallet');
    await user.getByTestId(`offer-buy-${proId}`).click();
    const popup = user.context().waitForEvent('page');
    await clickWhenIdle(user.getByTestId('buy-pay-epay-zfb'));
    const cashier = await popup;
    await cashier.waitForLoadState();
    expect(cashier.url()).toBe(`${EPAY.address}/submit.php`);
    const fields = Object.fromEntries(new URLSearchParams(posted));
    expect(fields).toMatchObject({
      pid: EPAY.pid,
      type: 'alipay',
      money: '9.90',
      name: 'SUB:Pro monthly',
      notify_url: `${h.baseUrl}/api/subscription/epay/notify`,
    });
    expect(epayVerify(fields, EPAY.key)).toBe(true);
    await cashier.close();
    const held = async () => (await userSubs()).filter((s) => s.plan_id === proId && s.status === 'active').length;
    expect(await held()).toBe(1);

    const notify: Record<string, string> = {
      pid: EPAY.pid,
      trade_no: '2026120499990001',
      out_trade_no: fields.out_trade_no!,
      type: 'alipay',
      name: fields.name!,
      money: fields.money!,
      trade_status: 'TRADE_SUCCESS',
    };
    const query = new URLSearchParams({ ...notify, sign: epaySign(notify, EPAY.key), sign_type: 'MD5' });
    expect(await (await fetch(`${h.baseUrl}/api/subscription/epay/notify?${query}`)).text()).toBe('success');
    await expect.poll(held).toBe(2);
    await user.goto('/app/wallet');
    await expect
      .poll(() => user.getByTestId('subscription-card').locator('[data-testid^="my-sub-progress-"]').count())
      .toBe(3);
  });
});
