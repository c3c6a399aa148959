import path from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../packages/server/src/modules/twofa/totp.js';
import {
  clickWhenIdle,
  login,
  logout,
  pageApi,
  SCREENSHOTS,
  setOptions,
  startHarness,
  type Harness,
} from './harness.js';
import { axeFindings, describeFindings } from './axe.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const CHANNEL_KEY = 'sk-passkey-browser-key';

/**
 * Passkeys in Chromium with its virtual authenticator (CDP WebAuthn): register one in personal settings, sign out,
 * sign in with it (no user name), use it for the 2FA step and for a channel key reveal, remove it. WebAuthn needs a
 * secure context and a domain as RP id, so the console is opened at http://localhost (not 127.0.0.1).
 */
describe('passkeys in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId = '';
  let origin = '';

  const credentials = async () =>
    ((await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: { signCount: number }[] })
      .credentials;

  beforeAll(async () => {
    h = await startHarness();
    origin = h.baseUrl.replace('127.0.0.1', 'localhost');
    // bypassCSP: the test injects axe-core.
    context = await h.browser.newContext({ baseURL: origin, viewport: { width: 1366, height: 860 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
    await login(page, ROOT);
    await setOptions(page, [['ServerAddress', origin]]);
    const channel = await pageApi(page, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'passkey-channel', key: CHANNEL_KEY, models: 'm-passkey', group: ['default'] },
    });
    expect(channel.success).toBe(true);
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const added = (await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    })) as { authenticatorId: string };
    authenticatorId = added.authenticatorId;
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await h?.close();
  });

  it('root turns passkeys on in System settings', async () => {
    await page.goto('/admin/settings?tab=system');
    const section = page.getByTestId('settings-section-passkey');
    await section.scrollIntoViewIfNeeded();
    await section.getByTestId('option-passkey.enabled').click();
    await clickWhenIdle(section.getByTestId('settings-save-passkey'));
    await expect
      .poll(async () => (await pageApi<{ passkey_login: boolean }>(page, 'GET', '/api/status')).data?.passkey_login)
      .toBe(true);
    await section.screenshot({ path: path.join(SCREENSHOTS, 'passkeys-00-settings.png') });
  });

  it('registers a passkey in personal settings', async () => {
    await page.goto('/app/me');
    const card = page.getByTestId('passkey-card');
    await expect.poll(() => card.getByTestId('passkey-state').textContent()).toBe('未绑定');
    await clickWhenIdle(card.getByTestId('passkey-register'));
    await expect.poll(() => card.getByTestId('passkey-state').textContent()).toBe('已绑定');
    expect(await credentials()).toHaveLength(1);
    await expect.poll(() => card.getByTestId('passkey-last-used').textContent()).toBe('尚未使用');
    await h.shot(page, 'passkeys-01-registered');
    expect(describeFindings(await axeFindings(page, '/app/me with a passkey'))).toEqual([]);
  });

  it('signs out and signs in with the passkey, without a user name', async () => {
    await logout(page);
    await page.getByTestId('login-passkey').waitFor();
    await h.shot(page, 'passkeys-02-login-page');
    expect(describeFindings(await axeFindings(page, '/login with passkeys on'))).toEqual([]);
    await page.getByTestId('login-passkey').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    expect((await pageApi<{ username: string }>(page, 'GET', '/api/user/self')).data?.username).toBe(ROOT.username);
    expect((await credentials())[0]!.signCount).toBeGreaterThan(0);
  });

  it('completes the 2FA step of a password sign-in with the passkey', async () => {
    const setup = await pageApi<{ secret: string }>(page, 'POST', '/api/user/2fa/setup', {});
    expect(setup, JSON.stringify(setup)).toMatchObject({ success: true });
    const code = totpCode(setup.data!.secret, Date.now());
    expect((await pageApi(page, 'POST', '/api/user/2fa/enable', { code })).success).toBe(true);
    await logout(page);
    await page.getByTestId('login-username').fill(ROOT.username);
    await page.getByTestId('login-password').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((u) => u.pathname === '/login/2fa');
    await page.getByTestId('twofa-login-passkey').waitFor();
    await h.shot(page, 'passkeys-03-2fa-step');
    await page.getByTestId('twofa-login-passkey').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    expect((await pageApi<{ username: string }>(page, 'GET', '/api/user/self')).data?.username).toBe(ROOT.username);
  });

  it('verifies with the passkey to reveal a channel key', async () => {
    const list = await pageApi<{ items: { id: number }[] }>(page, 'GET', '/api/channel/?p=1&page_size=10');
    const id = list.data!.items[0]!.id;
    await page.goto('/admin/channels');
    await page.getByTestId(`channel-edit-${id}`).click();
    await page.getByTestId('channel-form').waitFor();
    await clickWhenIdle(page.getByTestId('channel-key-show'));
    const usePasskey = page.getByTestId('channel-key-verify-passkey');
    await usePasskey.waitFor();
    await h.shot(page, 'passkeys-04-key-verify');
    await clickWhenIdle(usePasskey);
    await expect.poll(() => page.getByTestId('channel-form-key').inputValue()).toBe(CHANNEL_KEY);
    await h.shot(page, 'passkeys-05-key-shown');
  });

  it('removes the passkey after verifying with it', async () => {
    await page.goto('/app/me');
    const card = page.getByTestId('passkey-card');
    await expect.poll(() => card.getByTestId('passkey-state').textContent()).toBe('已绑定');
    await clickWhenIdle(card.getByTestId('passkey-remove'));
    await page.getByTestId('passkey-remove-confirm').click();
    // The state, and any notice the console showed (a refusal or a failed prompt names itself if the state stays).
    const stateAndNotices = async () =>
      [
        await card.getByTestId('passkey-state').textContent(),
        ...(await page.locator('.ant-message-notice').allTextContents()),
      ].join(' | ');
    await expect.poll(stateAndNotices).toMatch(/^未绑定/);
    await h.shot(page, 'passkeys-06-removed');
    expect((await pageApi<{ enabled: boolean }>(page, 'GET', '/api/user/passkey')).data).toEqual({ enabled: false });
  });
});
