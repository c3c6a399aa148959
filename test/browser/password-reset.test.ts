import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSmtp, type MockSmtp } from '../../packages/server/test/support/mock-smtp.js';
import {
  dropSession,
  login,
  motionSettled,
  pageApi,
  setOptions,
  smtpOptions,
  startHarness,
  type Harness,
  privateConsole,
} from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const USER = { username: 'mallory', password: 'mallory-pass-1', email: 'mallory@example.com' };

/** Registration with a mailed code, the password reset by mailed link and binding an email, in Chromium against a real SMTP mock. */
describe('email verification and password reset in Chromium', () => {
  let h: Harness;
  let page: Page;
  let dir: string;
  let smtp: MockSmtp;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-reset-'));
    const web = privateConsole(dir);
    smtp = await startMockSmtp();
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: web });
    ({ page } = await h.newPage());
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
    await login(page, ROOT);
    // Mailed links are built from ServerAddress alone (docs/operating/security.md: origins).
    await setOptions(page, [...smtpOptions(smtp), ['ServerAddress', h.baseUrl]]);
    await dropSession(page);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('registers with the code mailed to the address', async () => {
    await page.goto('/register');
    await page.getByTestId('register-username').fill(USER.username);
    await page.getByTestId('register-password').fill(USER.password);
    await page.getByTestId('register-confirm').fill(USER.password);
    await page.getByTestId('register-email').fill(USER.email);
    await page.getByTestId('register-send-code').click();
    const mail = await smtp.waitFor(USER.email, 0);
    const code = /verification code is: <strong>([A-Z0-9]{6})<\/strong>/.exec(mail.text)![1]!;
    // The resend button counts down.
    await expect.poll(() => page.getByTestId('register-send-code').isDisabled()).toBe(true);
    await page.getByTestId('register-code').fill(code);
    await h.shot(page, 'password-reset-01-register-with-code');
    await page.getByTestId('register-submit').click();
    await page.waitForURL((u) => u.pathname === '/login');
  });

  it('requests a reset on /reset, opens the mailed link, sees the new password and logs in with it', async () => {
    await page.goto('/reset');
    await page.getByTestId('reset-email').fill(USER.email);
    await page.getByTestId('reset-submit').click();
    const mail = await smtp.waitFor(USER.email, 1);
    await expect.poll(() => page.getByTestId('reset-submit').isDisabled()).toBe(true);
    await h.shot(page, 'password-reset-02-requested');
    const link = new URL(/href="([^"]+)"/.exec(mail.text)![1]!);
    expect(`${link.origin}${link.pathname}`).toBe(`${h.baseUrl}/user/reset`);

    await page.goto(`${link.pathname}${link.search}`);
    await page.getByTestId('reset-confirm').click();
    const field = page.getByTestId('reset-new-password');
    await field.waitFor();
    const password = await field.inputValue();
    expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
    await expect.poll(() => page.getByTestId('reset-confirm').isDisabled()).toBe(true);
    await h.shot(page, 'password-reset-03-new-password');

    // The link works once.
    expect(
      (await pageApi(page, 'POST', '/api/user/reset', { email: USER.email, token: link.searchParams.get('token') }))
        .message,
    ).toBe('reset link invalid or expired');

    await login(page, { username: USER.username, password });
    expect(new URL(page.url()).pathname).not.toBe('/login');
    const self = await pageApi<{ username: string; email: string }>(page, 'GET', '/api/user/self');
    expect(self.data).toMatchObject({ username: USER.username, email: USER.email });
    await h.shot(page, 'password-reset-04-logged-in');
  });

  it('changes the bound email on the personal page with a code mailed to the new address', async () => {
    const next = 'mallory.new@example.com';
    await page.goto('/app/me');
    await page.getByTestId('me-bind-email').click();
    await page.getByTestId('me-bind-email-input').fill(next);
    // A click while the dialog still zooms open can land on its wrapper (the button moves under the pointer).
    await motionSettled(page);
    await page.getByTestId('me-bind-email-send').click();
    const code = /verification code is: <strong>([A-Z0-9]{6})<\/strong>/.exec((await smtp.waitFor(next, 0)).text)![1]!;
    await expect.poll(() => page.getByTestId('me-bind-email-send').isDisabled()).toBe(true);
    await page.getByTestId('me-bind-email-code').fill(code);
    await h.shot(page, 'password-reset-05-bind-email');
    await page.getByTestId('me-bind-email-submit').click();
    await expect.poll(() => page.getByTestId('me-bindings').textContent()).toContain(next);
    expect((await pageApi<{ email: string }>(page, 'GET', '/api/user/self')).data!.email).toBe(next);
    await page.getByTestId('me-bind-email-input').waitFor({ state: 'detached' });
    await page.locator('.ant-modal-mask').first().waitFor({ state: 'hidden' });
    await h.shot(page, 'password-reset-06-email-bound');
  });
});
