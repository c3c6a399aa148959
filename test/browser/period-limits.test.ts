import type { PeriodRemaining } from '@tollway/shared';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, setUpRoot, type Session } from './api-session.js';
import { clickWhenIdle, motionSettled, PAGE_ACTION_TIMEOUT_MS, SCREENSHOTS, type Harness } from './harness.js';
import { signIn, startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'plroot', password: 'pl-root-pass-1' };
const USER = { username: 'pluser', password: 'pl-user-pass-1' };
const MODEL = 'pl-model';
/** A fixed price per call: $0.10, 50000 quota at the default 500000 quota per dollar. */
const PRICE_DOLLARS = 0.1;
const CALL_QUOTA = 50_000;
/**
 * The token's limits, typed in the form's unit (quota; 500000 = $1): two calls fill the day exactly. Requests per day
 * are set to 5, then edited to 7.
 */
const QUOTA_PER_DAY = 2 * CALL_QUOTA;
const FIRST_REQUESTS_PER_DAY = 5;
const REQUESTS_PER_DAY = 7;
/** The user's limits, set by the administrator: wide enough that the token's own day is the tightest. */
const USER_QUOTA_PER_WEEK = 3_000_000;
const USER_QUOTA_PER_5H = 1_250_000;
/** Seconds before local midnight under which the calls wait for the new day (the daily window must not turn). */
const MIDNIGHT_MARGIN_S = 90;
/** The rolling window's slots and length. */
const FIVE_MINUTES_MS = 5 * 60_000;
const FIVE_HOURS_S = 5 * 3600;

/** Opens an English page of `who`, signed in through the login form. */
async function pageOf(h: Harness, who: { username: string; password: string }): Promise<Page> {
  const context = await h.browser.newContext({
    baseURL: h.baseUrl,
    viewport: { width: 1366, height: 860 },
    deviceScaleFactor: 1,
  });
  await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  await signIn(page, who);
  return page;
}

/** A picture of one part of the page. */
async function photograph(part: Locator, name: string): Promise<void> {
  await part
    .page()
    .waitForLoadState('networkidle')
    .catch(() => undefined);
  await part.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: 'disabled' });
}

/** Scrolls a drawer's field to the middle of its view (clear of the drawer's sticky footer). */
const centre = (field: Locator) => field.evaluate((el) => el.scrollIntoView({ block: 'center' }));

/** The form item around the field with test id `testid`, and its error line. */
const fieldError = (page: Page, testid: string) =>
  page.locator('.ant-form-item', { has: page.getByTestId(testid) }).locator('.ant-form-item-explain-error');

/** Local "YYYY-MM-DD HH:mm:ss" of epoch seconds, as the console writes times. */
function localTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** The next local midnight (the end of today's calendar day, in this process's time zone = the server's), in seconds. */
function nextMidnight(): number {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime() / 1000;
}

/** Monday's local midnight after today (the end of this ISO week), in seconds. */
function nextMonday(): number {
  const now = new Date();
  const daysLeft = (8 - now.getDay()) % 7 || 7;
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + daysLeft).getTime() / 1000;
}

/**
 * Period limits in the console: a user sets a token's daily quota and daily requests in the token editor (bad values
 * refused in the form), an administrator a user's weekly and 5-hour quota in the user editor; relay calls through a
 * mock upstream use the token's day up, and the token list shows what is left, when it resets, and the day spent.
 */
describe('period limits in the console (Chromium)', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  let owner: Session;
  let userId: number;
  let admin: Page;
  let user: Page;
  let tokenId: number;
  const token = () => apiAs<Record<string, unknown>>(owner, 'GET', `/api/token/${tokenId}`);

  beforeAll(async () => {
    mock = await startMockUpstream();
    h = await startPrivateHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
    owner = await loginSession(h.baseUrl, USER);
    userId = owner.id;
    await apiAs(root, 'PUT', '/api/user/', { id: userId, quota: 5_000_000 });
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: PRICE_DOLLARS }) });
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'pl-up', type: 1, key: 'pl-key', base_url: mock.url, models: MODEL, group: 'default' },
    });
    admin = await pageOf(h, ROOT);
    user = await pageOf(h, USER);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it("sets a token's daily quota and requests per day in the token editor; bad values are refused", async () => {
    await user.goto('/app/tokens');
    await user.getByTestId('tokens-add').click();
    await motionSettled(user); // until it has opened: a click while it still moves can miss
    await user.getByTestId('token-form-name').fill('pl-token');
    await user.getByTestId('token-form-unlimited').click();
    // The period boxes count quota units, not dollars: the hint says so.
    const day = user.getByTestId('token-form-quota_per_day');
    const requests = user.getByTestId('token-form-requests_per_day');
    await expect.poll(() => day.inputValue()).toBe('0');
    expect(await user.locator('.ant-form-item', { has: day }).textContent()).toContain('In quota units (500000 = $1)');
    await day.fill(String(QUOTA_PER_DAY));
    await requests.fill(String(FIRST_REQUESTS_PER_DAY));
    await requests.blur();
    await centre(requests);
    await photograph(user.getByTestId('token-drawer'), 'period-limits-01-token-form');
    await clickWhenIdle(user.getByTestId('token-form-submit'));
    await user.getByTestId('token-drawer').waitFor({ state: 'hidden' });
    const row = user.locator('[data-testid^="token-row-"]').first();
    await row.waitFor();
    tokenId = Number((await row.getAttribute('data-testid'))!.replace('token-row-', ''));
    expect(await token()).toMatchObject({
      name: 'pl-token',
      unlimited_quota: true,
      quota_per_day: QUOTA_PER_DAY,
      quota_per_week: 0,
      quota_per_month: 0,
      quota_per_5h: 0,
      requests_per_day: FIRST_REQUESTS_PER_DAY,
    });

    // The editor shows the saved limits (opened once the toast of the creation is gone, for a clear picture). A negative quota and a fraction of a request are refused under their
    // fields, as typed (a -5 made 0 would mean no limit), and nothing is saved; so is a count past the maximum.
    await expect.poll(() => user.locator('.ant-message-notice').count(), { timeout: 15_000 }).toBe(0);
    await user.getByTestId(`token-edit-${tokenId}`).click();
    await expect.poll(() => day.inputValue()).toBe(String(QUOTA_PER_DAY));
    expect(await requests.inputValue()).toBe(String(FIRST_REQUESTS_PER_DAY));
    await day.fill('-5');
    await requests.fill('1.5');
    await requests.blur();
    await user.getByTestId('token-form-submit').click();
    const refusal = 'Enter a whole number, 0 or more';
    await expect.poll(() => fieldError(user, 'token-form-quota_per_day').allTextContents()).toEqual([refusal]);
    await expect.poll(() => fieldError(user, 'token-form-requests_per_day').allTextContents()).toEqual([refusal]);
    expect([await day.inputValue(), await requests.inputValue()]).toEqual(['-5', '1.5']);
    await centre(user.getByTestId('token-form-quota_per_month'));
    await photograph(user.getByTestId('token-drawer'), 'period-limits-02-token-form-refused');
    await requests.fill('3000000000');
    await requests.blur();
    await user.getByTestId('token-form-submit').click();
    await expect.poll(() => fieldError(user, 'token-form-requests_per_day').allTextContents()).toEqual([refusal]);
    expect(await token()).toMatchObject({ quota_per_day: QUOTA_PER_DAY, requests_per_day: FIRST_REQUESTS_PER_DAY });

    // Text that is not a number is not taken: the box goes back to the limit it held.
    await day.fill(String(QUOTA_PER_DAY));
    await day.blur();
    await day.fill('abc');
    await day.blur();
    await expect.poll(() => day.inputValue()).toBe(String(QUOTA_PER_DAY));
    await requests.fill(String(REQUESTS_PER_DAY));
    await requests.blur();
    await expect.poll(() => user.getByTestId('token-drawer').locator('.ant-form-item-explain-error').count()).toBe(0);
    await clickWhenIdle(user.getByTestId('token-form-submit'));
    await user.getByTestId('token-drawer').waitFor({ state: 'hidden' });
    expect(await token()).toMatchObject({ quota_per_day: QUOTA_PER_DAY, requests_per_day: REQUESTS_PER_DAY });
  });

  it("sets a user's weekly and 5-hour quota in the admin user editor", async () => {
    await admin.goto(`/user/edit/${userId}`);
    const week = admin.getByTestId('user-form-quota_per_week');
    const fiveHours = admin.getByTestId('user-form-quota_per_5h');
    await expect.poll(() => week.inputValue()).toBe('0');
    await fiveHours.fill('-1');
    await fiveHours.blur();
    await admin.getByTestId('user-form-submit').click();
    await expect
      .poll(() => fieldError(admin, 'user-form-quota_per_5h').allTextContents())
      .toEqual(['Enter a whole number, 0 or more']);
    await week.fill(String(USER_QUOTA_PER_WEEK));
    await fiveHours.fill(String(USER_QUOTA_PER_5H));
    await fiveHours.blur();
    await expect.poll(() => fieldError(admin, 'user-form-quota_per_5h').count()).toBe(0);
    await centre(fiveHours);
    await photograph(admin.getByRole('dialog'), 'period-limits-03-user-form');
    await clickWhenIdle(admin.getByTestId('user-form-submit'));
    await admin.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await apiAs<Record<string, unknown>>(root, 'GET', `/api/user/${userId}`)).toMatchObject({
      quota_per_day: 0,
      quota_per_week: USER_QUOTA_PER_WEEK,
      quota_per_month: 0,
      quota_per_5h: USER_QUOTA_PER_5H,
      requests_per_day: 0,
    });
  });

  it("shows what is left of the token's day in the token list; past the limit the relay answers 429", async () => {
    const untilMidnight = nextMidnight() - Date.now() / 1000;
    if (untilMidnight < MIDNIGHT_MARGIN_S) await new Promise((r) => setTimeout(r, (untilMidnight + 2) * 1000));
    const reset = nextMidnight();
    const { key } = await apiAs<{ key: string }>(owner, 'POST', `/api/token/${tokenId}/key`);
    const auth = { authorization: `Bearer sk-${key}` };
    const chat = () =>
      fetch(`${h.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const usage = async () => {
      const res = await fetch(`${h.baseUrl}/api/usage/token/`, { headers: auth });
      return ((await res.json()) as { data: { period_limits: PeriodRemaining[] } }).data.period_limits;
    };
    const cell = user.getByTestId(`token-period-${tokenId}`);
    const shown = async () => {
      await user.getByTestId('tokens-refresh').click();
      return (await cell.locator('.ant-typography').allTextContents()).join(' | ');
    };

    /** The tooltip of one line of the cell (the mouse leaves first, so that no other tooltip is still up). */
    const tip = async (item: RegExp) => {
      await user.mouse.move(0, 0);
      await expect.poll(() => user.locator('.ant-tooltip:visible').count()).toBe(0);
      await cell.getByText(item).hover();
      let text = '';
      await expect
        .poll(async () => (text = (await user.locator('.ant-tooltip:visible').allInnerTexts()).join(' | ')))
        .toMatch(/ used\n/);
      return text;
    };
    const slotEnd = (ms: number) => (Math.floor(ms / FIVE_MINUTES_MS) * FIVE_MINUTES_MS) / 1000 + FIVE_HOURS_S;

    await user.goto('/app/tokens');
    await expect.poll(shown).toBe('Day: $0.20 left | Requests today: 7 left');
    const before = Date.now();
    expect((await chat()).status).toBe(200);
    const after = Date.now();
    await expect.poll(shown).toBe('Day: $0.10 left | Requests today: 6 left');
    // On hover: the use against the limit and the reset (local midnight, written in local time).
    expect(await tip(/^Day:/)).toBe(`$0.10 of $0.20 used\nResets at ${localTime(reset)}`);
    await photograph(
      user.getByTestId(`token-row-${tokenId}`).locator('xpath=ancestor::table[1]'),
      'period-limits-04-token-list',
    );
    expect(await tip(/^Requests today:/)).toBe(`1 of 7 used\nResets at ${localTime(reset)}`);
    // The console's numbers are the relay's counters (the user's own limits count the call too).
    const counted = await usage();
    expect(counted).toEqual([
      { level: 'token', period: 'day', limit: QUOTA_PER_DAY, used: CALL_QUOTA, remaining: CALL_QUOTA, reset_at: reset },
      {
        level: 'user',
        period: 'week',
        limit: USER_QUOTA_PER_WEEK,
        used: CALL_QUOTA,
        remaining: USER_QUOTA_PER_WEEK - CALL_QUOTA,
        reset_at: nextMonday(),
      },
      {
        level: 'user',
        period: '5h',
        limit: USER_QUOTA_PER_5H,
        used: CALL_QUOTA,
        remaining: USER_QUOTA_PER_5H - CALL_QUOTA,
        reset_at: expect.any(Number),
      },
      { level: 'token', period: 'requests_day', limit: REQUESTS_PER_DAY, used: 1, remaining: 6, reset_at: reset },
    ]);
    const fiveHourReset = counted.find((l) => l.period === '5h')!.reset_at;
    expect(fiveHourReset).toBeGreaterThanOrEqual(slotEnd(before));
    expect(fiveHourReset).toBeLessThanOrEqual(slotEnd(after));

    // The second call fills the day; the third is refused with a 429 naming the limit and its reset.
    expect((await chat()).status).toBe(200);
    const refused = await chat();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(reset - Math.ceil(Date.now() / 1000));
    expect(retryAfter).toBeLessThanOrEqual(reset - Math.floor(before / 1000));
    expect(await refused.json()).toEqual({
      error: {
        message: `daily quota limit of this token reached (${QUOTA_PER_DAY} of ${QUOTA_PER_DAY} used, this call needs ${CALL_QUOTA}); resets at ${new Date(reset * 1000).toISOString()}`,
        type: 'rate_limit_error',
        param: null,
        code: 'period_limit_reached',
      },
    });
    expect(mock.requests.filter((r) => r.body.model === MODEL)).toHaveLength(2);

    // The console shows the day spent, in red; the refused call was counted as a request of the day.
    await user.mouse.move(0, 0);
    await expect.poll(shown).toBe('Day: $0.00 left | Requests today: 4 left');
    expect(await cell.getByText(/^Day:/).getAttribute('class')).toContain('ant-typography-danger');
    expect(await cell.getByText(/^Requests today:/).getAttribute('class')).not.toContain('ant-typography-danger');
    expect(await tip(/^Day:/)).toBe(`$0.20 of $0.20 used\nResets at ${localTime(reset)}`);
    await photograph(
      user.getByTestId(`token-row-${tokenId}`).locator('xpath=ancestor::table[1]'),
      'period-limits-05-token-list-spent',
    );
  });
});
