import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSiteverify, type MockSiteverify } from '../../packages/server/test/support/mock-siteverify.js';
import { startMockSmtp, type MockSmtp } from '../../packages/server/test/support/mock-smtp.js';
import { login, setOptions, smtpOptions, startHarness, type Harness, privateConsole } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const SECRET = '0x4AAAAAAA-browser-secret';
const SITE_KEY = '0x4AAAAAAA-browser-site-key';
const SCRIPT = /^https:\/\/challenges\.cloudflare\.com\/turnstile\/v0\/api\.js(\?.*)?$/;

/**
 * Stands in for Cloudflare's api.js (the machine has no internet): window.turnstile.render draws a 300×65 box
 * and records its options; window.__turnstileSolve() hands every widget a token the mock verifier issued (through
 * the exposed __issueTurnstileToken); reset() solves again, as the real widget does on its own.
 */
const STAND_IN = `(() => {
  const widgets = [];
  window.__turnstileRenders = [];
  const solve = async (w) => {
    const token = await window.__issueTurnstileToken();
    w.el.querySelector('span').textContent = 'Success! (stand-in)';
    w.opts.callback(token);
  };
  window.__turnstileSolve = () => Promise.all(widgets.filter((w) => !w.removed).map(solve));
  window.turnstile = {
    render(el, opts) {
      window.__turnstileRenders.push({ sitekey: opts.sitekey, theme: opts.theme, language: opts.language });
      const box = document.createElement('div');
      box.setAttribute('data-testid', 'turnstile-stand-in');
      box.style.cssText = 'width:300px;height:65px;box-sizing:border-box;border:1px solid #d9d9d9;border-radius:4px;display:flex;align-items:center;padding:0 16px;font:14px sans-serif;background:#fafafa;color:#333';
      box.innerHTML = '<span>Verifying… (Turnstile stand-in)</span>';
      el.appendChild(box);
      widgets.push({ el: box, opts, removed: false });
      return String(widgets.length - 1);
    },
    reset(id) { const w = widgets[Number(id)]; if (w && !w.removed) void solve(w); },
    remove(id) { const w = widgets[Number(id)]; if (w) { w.removed = true; w.el.remove(); } },
  };
})();`;

/** Login with the bot check on, in Chromium: the console renders the widget and sends its token; the server verifies it at the mock. */
/** The reset page's retry countdown, in seconds (the spec's 30). */
const RESET_COUNTDOWN_S = 30;

describe('Turnstile bot check in Chromium', () => {
  let h: Harness;
  let page: Page;
  let dir: string;
  let verifier: MockSiteverify;
  let smtp: MockSmtp;
  const issued: string[] = [];
  const scriptLoads: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-turnstile-'));
    const web = privateConsole(dir);
    verifier = await startMockSiteverify(SECRET);
    smtp = await startMockSmtp();
    h = await startHarness({
      SQLITE_PATH: path.join(dir, 'tollway.db'),
      WEB_DIST: web,
      TURNSTILE_VERIFY_URL: verifier.verifyUrl,
    });
    ({ page } = await h.newPage());
    await page.exposeFunction('__issueTurnstileToken', () => {
      const token = verifier.issue();
      issued.push(token);
      return token;
    });
    await page.route(SCRIPT, (route) => {
      scriptLoads.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'application/javascript', body: STAND_IN });
    });
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await verifier?.close();
    await smtp?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('with the check off the login page loads no widget and logs in without a token', async () => {
    await login(page, ROOT);
    expect(scriptLoads).toEqual([]);
    expect(verifier.calls).toEqual([]);
    await setOptions(page, [
      ['TurnstileSiteKey', SITE_KEY],
      ['TurnstileSecretKey', SECRET],
      ['TurnstileCheckEnabled', 'true'],
      ...smtpOptions(smtp),
      ['ServerAddress', h.baseUrl],
    ]);
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
  });

  it('renders the widget with the site key, asks to wait before a token exists, then logs in with the token the verifier accepts', async () => {
    await page.goto('/login');
    await page.getByTestId('turnstile-stand-in').waitFor();
    expect(scriptLoads).toHaveLength(1);
    expect(
      await page.evaluate(() =>
        (window as unknown as { __turnstileRenders: { sitekey: string }[] }).__turnstileRenders.map((r) => r.sitekey),
      ),
    ).toEqual([SITE_KEY]);

    await page.getByTestId('login-username').fill(ROOT.username);
    await page.getByTestId('login-password').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.getByText('请稍后几秒重试，Turnstile 正在检查用户环境！').waitFor();
    expect(verifier.calls).toEqual([]);
    expect(page.url()).toContain('/login');

    await page.evaluate(() => (window as unknown as { __turnstileSolve(): Promise<void> }).__turnstileSolve());
    await page.getByText('Success! (stand-in)').waitFor();
    await h.shot(page, 'turnstile-01-login-with-widget');

    const sent = page.waitForRequest((r) => r.url().includes('/api/user/login'));
    await page.getByTestId('login-submit').click();
    const url = new URL((await sent).url());
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    const token = issued[0]!;
    expect(url.searchParams.get('turnstile')).toBe(token);
    expect(verifier.calls).toEqual([
      { secret: SECRET, response: token, remoteip: '127.0.0.1', contentType: 'application/x-www-form-urlencoded' },
    ]);
  });

  it('the reset page, reached without a reload, reuses the loaded script, shows a verifier failure and sends a fresh token on the next try', async () => {
    // Let the console finish landing after the login before the session is dropped.
    await page.waitForLoadState('networkidle');
    // The stored user is cleared and the page left in one step, while the session still holds: a console
    // request meeting a dropped session would be answered 401 and send the page to /login?expired=… itself,
    // racing (and aborting) a navigation of the test's own. The cookie goes once the login page has loaded.
    await page.evaluate(() => {
      localStorage.clear();
      location.href = '/login';
    });
    await page.waitForURL((u) => u.pathname === '/login');
    await page.waitForLoadState('networkidle');
    await page.context().clearCookies();
    await page.getByTestId('turnstile-stand-in').waitFor();
    await page.getByTestId('login-reset-link').click();
    await page.getByTestId('reset-email').waitFor();
    await page.getByTestId('turnstile-stand-in').waitFor();
    // Two documents so far (the first login page and this one), one script load each.
    expect(scriptLoads).toHaveLength(2);
    await page.evaluate(() => (window as unknown as { __turnstileSolve(): Promise<void> }).__turnstileSolve());
    await page.getByTestId('reset-email').fill('nobody@example.com');

    const send = async () => {
      const sent = page.waitForRequest((r) => r.url().includes('/api/reset_password'));
      await page.getByTestId('reset-submit').click();
      return new URL((await sent).url()).searchParams.get('turnstile');
    };
    // The page's timers run on a clock the test can advance (the retry countdown below).
    await page.clock.install();
    // The verifier is down for the first try: the refusal's text (by its code) is shown.
    verifier.mode = 'garbage';
    const solved = issued.at(-1);
    const first = await send();
    expect(first).toBe(solved);
    await page.getByText('人机验证暂不可用，请稍后再试').waitFor();
    verifier.mode = 'answer';
    // The spent token was replaced by a fresh one (reset), which the next try sends.
    await expect.poll(() => issued.at(-1)).not.toBe(first);
    const fresh = issued.at(-1);
    // The spec's 30-second retry countdown started with the click: run it out, a second at a time.
    const submit = page.getByTestId('reset-submit');
    for (let s = 0; s <= RESET_COUNTDOWN_S && (await submit.isDisabled()); s++) await page.clock.runFor(1000);
    expect(await submit.isEnabled()).toBe(true);
    const second = await send();
    expect(second).toBe(fresh);
    // The check passed: the server answers as for any address (this one has no account, so no mail).
    await page.getByText('重置邮件发送成功，请检查邮箱').waitFor();
    expect(verifier.calls.slice(-2).map((c) => c.response)).toEqual([first, second]);
    expect(verifier.calls.every((c) => c.secret === SECRET)).toBe(true);
  });

  it('registration with a mailed code (in English) spends one token on the code and a fresh one on the account', async () => {
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/register');
    await page.getByTestId('turnstile-stand-in').waitFor();
    await page.getByTestId('register-username').fill('zoe');
    await page.getByTestId('register-password').fill('zoe-pass-123');
    await page.getByTestId('register-confirm').fill('zoe-pass-123');
    await page.getByTestId('register-email').fill('zoe@example.com');
    await page.getByTestId('register-send-code').click();
    await page
      .getByText('Please wait a few seconds and try again: Turnstile is still checking your browser.')
      .waitFor();
    expect(smtp.to('zoe@example.com')).toHaveLength(0);

    await page.evaluate(() => (window as unknown as { __turnstileSolve(): Promise<void> }).__turnstileSolve());
    const forCode = issued.at(-1);
    await page.getByTestId('register-send-code').click();
    const mail = await smtp.waitFor('zoe@example.com', 0);
    const code = /verification code is: <strong>([A-Z0-9]{6})<\/strong>/.exec(mail.text)![1]!;
    await page.getByTestId('register-code').fill(code);
    await expect.poll(() => issued.at(-1)).not.toBe(forCode);
    const forAccount = issued.at(-1);
    await h.shot(page, 'turnstile-02-register-with-widget');
    await page.getByTestId('register-submit').click();
    await page.waitForURL((u) => u.pathname === '/login');
    expect(verifier.calls.slice(-2).map((c) => c.response)).toEqual([forCode, forAccount]);
  });
});
