import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_CLIENTS, startMockOAuth, type MockOAuth } from '../../packages/server/test/support/mock-oauth.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { dropSession, startHarness, type Harness, privateConsole } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };

/** OIDC sign-in in Chromium: the login page's button, the provider's authorize page (a mock) and the callback. */
describe('OIDC sign-in in Chromium', () => {
  let h: Harness;
  let page: Page;
  let dir: string;
  let mock: MockOAuth;
  let root: Session;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-oauth-'));
    const web = privateConsole(dir);
    mock = await startMockOAuth();
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: web });
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
    root = await loginSession(h.baseUrl, ROOT);
    for (const [key, value] of [
      ['oidc.enabled', 'true'],
      ['oidc.client_id', MOCK_CLIENTS.oidc.id],
      ['oidc.client_secret', MOCK_CLIENTS.oidc.secret],
      ['oidc.authorization_endpoint', `${mock.url}/oidc/authorize`],
      ['oidc.token_endpoint', `${mock.url}/oidc/token`],
      ['oidc.user_info_endpoint', `${mock.url}/oidc/userinfo`],
    ]) {
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    }
    ({ page } = await h.newPage());
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await mock?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the OIDC button on /login goes through the provider and lands logged in on the console as a new user', async () => {
    mock.oidcUser = { sub: 'browser-sub-1', preferred_username: 'ada', name: 'Ada Lovelace', email: 'ada@idp.test' };
    await page.goto('/login');
    await page.getByTestId('oauth-oidc').click();
    await page.waitForURL((u) => u.pathname === '/app/tokens', { timeout: 20_000 });
    const stored = await page.evaluate(
      () =>
        JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number; username?: string; display_name?: string },
    );
    expect(stored.username).toMatch(/^oidc_\d+$/);
    expect(stored.display_name).toBe('Ada Lovelace');
    // The token request went back to the callback address the browser was sent to.
    expect(mock.exchanges.at(-1)!.fields.redirect_uri).toBe(`${h.baseUrl}/oauth/oidc`);
    // The session works for the console's own calls.
    const self = await page.evaluate(async (id) => {
      const r = await fetch('/api/user/self', { headers: { 'New-Api-User': String(id) } });
      return (await r.json()) as { success: boolean; data?: { oidc_id: string; email: string } };
    }, stored.id);
    expect(self).toMatchObject({ success: true, data: { oidc_id: 'browser-sub-1', email: 'ada@idp.test' } });
    await h.shot(page, 'oauth-01-oidc-logged-in');
  });

  it('a second sign-in with the same provider account finds the same user', async () => {
    const first = await page.evaluate(() => (JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number }).id);
    await dropSession(page);
    await page.goto('/login');
    await page.getByTestId('oauth-oidc').click();
    await page.waitForURL((u) => u.pathname === '/app/tokens', { timeout: 20_000 });
    const again = await page.evaluate(() => (JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number }).id);
    expect(again).toBe(first);
  });

  it('a callback whose state does not match shows the refusal and a way back to /login', async () => {
    await dropSession(page);
    await page.goto('/oauth/oidc?code=forged-code&state=forged-state');
    const callback = page.getByTestId('oauth-callback');
    await expect.poll(() => callback.textContent()).toContain('登录状态无效或已过期');
    await h.shot(page, 'oauth-02-oidc-state-refused');
  });
});
