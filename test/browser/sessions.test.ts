import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'sessroot', password: 'sess-root-pass-1' };

/** Personal settings lists the account's signed-in browsers; signing one out there signs that browser out. */
describe('signed-in sessions in Chromium', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
  });
  afterAll(async () => h?.close());

  it('lists this and the other browsers; one signed out, then all others, each has to sign in again', async () => {
    const { page, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(page, ROOT);
    // Two more browsers: a second console tab elsewhere and an API session.
    const { page: other, context: otherContext } = await h.newPage();
    await login(other, ROOT);
    const script: Session = await loginSession(h.baseUrl, ROOT);

    await page.goto('/app/me');
    const card = page.getByTestId('me-sessions');
    await expect.poll(() => card.getByTestId('session-other').count()).toBe(2);
    expect(await card.getByTestId('session-current').count()).toBe(1);
    expect(await card.getByTestId('session-current').textContent()).toContain('This session');
    expect(await card.getByTestId('session-current').textContent()).toContain('127.0.0.1');
    expect(await card.getByTestId('session-current').getByTestId('session-origin').textContent()).toContain('Password');
    await h.shot(page, 'sessions-01-list');

    // Sign out the other browser's session: the one whose agent is Chromium's (the API session has none).
    const chromiumRow = card.getByTestId('session-other').filter({ hasText: 'Chrome · Linux' });
    await chromiumRow.getByTestId('session-sign-out').click();
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => card.getByTestId('session-other').count()).toBe(1);
    await other.goto('/app/tokens');
    await other.waitForURL((u) => u.pathname.startsWith('/login'));

    // The API session still works until "sign out all others".
    expect((await apiAs<{ id: number }>(script, 'GET', '/api/user/self')).id).toBe(1);
    await card.getByTestId('sessions-sign-out-others').click();
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => card.getByTestId('session-other').count()).toBe(0);
    await expect(apiAs(script, 'GET', '/api/user/self')).rejects.toThrow();
    // This browser stays signed in.
    await page.reload();
    await expect.poll(() => card.getByTestId('session-current').count()).toBe(1);
    await h.shot(page, 'sessions-02-after');
    await otherContext.close();
    await context.close();
  });
});
