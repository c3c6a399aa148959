import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../../packages/server/test/support/oidc-issuer.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, logout, motionSettled, privateConsole, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };

/**
 * A root-defined OpenID provider in Chromium: root adds it by discovery against the tests' own issuer, a user signs
 * in through its button on the login page (code + PKCE + nonce), sees the binding in the personal settings and
 * releases it (which ends the session the provider opened).
 */
describe('root-defined sign-in provider in Chromium', () => {
  let h: Harness;
  let page: Page;
  let dir: string;
  let issuer: TestIssuer;
  let root: Session;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-custom-oauth-'));
    const web = privateConsole(dir);
    issuer = await startIssuer();
    issuer.users.set('u-grace', {
      claims: { preferred_username: 'grace', name: 'Grace Hopper', email: 'grace@idp.test', groups: ['engineering'] },
    });
    issuer.signInAs = 'u-grace';
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: web });
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
    root = await loginSession(h.baseUrl, ROOT);
    for (const [key, value] of [
      ['fetch_setting.allow_private_ip', 'true'],
      ['fetch_setting.allowed_ports', JSON.stringify([new URL(issuer.url).port])],
      ['GroupRatio', JSON.stringify({ default: 1, vip: 1 })],
    ])
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    ({ page } = await h.newPage());
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await issuer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('root adds a provider by discovery in the system settings', async () => {
    await login(page, ROOT);
    await page.goto('/admin/settings?tab=system');
    const section = page.getByTestId('settings-section-custom-oauth');
    await section.scrollIntoViewIfNeeded();
    await page.getByTestId('custom-oauth-add').click();
    const editor = page.getByTestId('custom-oauth-editor');
    await editor.getByTestId('custom-oauth-field-name').fill('Acme SSO');
    await editor.getByTestId('custom-oauth-field-slug').fill('acme');
    await editor.getByTestId('custom-oauth-field-well_known').fill(issuer.url);
    await editor.getByTestId('custom-oauth-discover').click();
    await expect
      .poll(() => editor.getByTestId('custom-oauth-field-token_endpoint').inputValue())
      .toBe(`${issuer.url}/token`);
    expect(await editor.getByTestId('custom-oauth-field-jwks_url').inputValue()).toBe(`${issuer.url}/jwks`);
    await editor.getByTestId('custom-oauth-field-client_id').fill(issuer.clientId);
    await editor.getByTestId('custom-oauth-field-client_secret').fill(issuer.clientSecret);
    await editor.getByTestId('custom-oauth-field-group_field').fill('groups');
    await editor.getByTestId('custom-oauth-field-group_mapping').fill('{"engineering": "vip"}');
    await editor.getByTestId('custom-oauth-field-auto_register').click();
    // The drawer is fixed on the viewport: a viewport shot shows it whole.
    await page.screenshot({ path: path.join(SCREENSHOTS, 'custom-oauth-01-editor.png') });
    await page.getByTestId('custom-oauth-submit').click();
    await expect.poll(() => section.textContent()).toContain('Acme SSO');
    await expect.poll(() => page.getByTestId('custom-oauth-editor').count()).toBe(0);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'custom-oauth-02-list.png') });
    await logout(page);
  });

  it('a user signs in with its button, sees the binding and releases it', async () => {
    await page.goto('/login');
    await page.getByTestId('oauth-custom-acme').click();
    await page.waitForURL((u) => u.pathname.startsWith('/app'), { timeout: 20_000 });
    const stored = await page.evaluate(
      () => JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number; username?: string; group?: string },
    );
    expect(stored.username).toBe('grace');
    // The groups claim put the new user in the vip group.
    const user = await apiAs<{ group: string }>(root, 'GET', `/api/user/${stored.id}`);
    expect(user.group).toBe('vip');
    // PKCE went with the code exchange.
    expect(issuer.lastTokenRequest!.form.get('code_verifier')).toBeTruthy();

    await page.goto('/app/me');
    const bindings = page.getByTestId('me-bindings');
    await expect.poll(() => bindings.textContent()).toContain('Acme SSO');
    await expect.poll(() => bindings.textContent()).toContain('u-grace');
    await h.shot(page, 'custom-oauth-03-bound');
    await page.getByTestId('me-unbind-acme').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-acme').click();
    // The session came from that provider: releasing it signs this browser out.
    await page.waitForURL((u) => u.pathname.startsWith('/login'), { timeout: 20_000 });
    const left = await apiAs<unknown[]>(root, 'GET', `/api/user/${stored.id}/oauth/bindings`);
    expect(left).toEqual([]);
    await h.shot(page, 'custom-oauth-04-released');
  });

  it('behind a trusted identity proxy, the login button signs in with the headers it adds', async () => {
    await apiAs(root, 'POST', '/api/custom-oauth-provider/', {
      name: 'Company SSO',
      slug: 'proxy',
      kind: 'trusted_header',
      enabled: true,
      trusted_proxy_cidrs: '["127.0.0.1/32"]',
      external_id_header: 'X-Remote-User',
      username_header: 'X-Remote-User',
      email_header: 'X-Remote-Email',
      auto_register: true,
    });
    // The browser stands for the proxy's users: every request carries the headers the proxy would add.
    const { context, page: behindProxy } = await h.newPage();
    await context.setExtraHTTPHeaders({ 'x-remote-user': 'ivy', 'x-remote-email': 'ivy@corp.test' });
    await behindProxy.goto('/login');
    await behindProxy.getByTestId('oauth-custom-proxy').click();
    await behindProxy.waitForURL((u) => u.pathname.startsWith('/app'), { timeout: 20_000 });
    const stored = await behindProxy.evaluate(
      () => JSON.parse(localStorage.getItem('user') ?? '{}') as { username?: string; email?: string },
    );
    expect(stored).toMatchObject({ username: 'ivy', email: 'ivy@corp.test' });
    await behindProxy.getByTestId('tokens-add').waitFor();
    await h.shot(behindProxy, 'custom-oauth-05-trusted-header');
    await context.close();
  });
});
