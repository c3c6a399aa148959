import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MOCK_CLIENTS,
  MOCK_WECHAT_TOKEN,
  startMockOAuth,
  type MockOAuth,
} from '../../packages/server/test/support/mock-oauth.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, motionSettled, startHarness, type Harness } from './harness.js';

const ROOT = { username: 's18bind', password: 's18-bind-pass-1' };
/** The widgets report a script that has not arrived after this long (WIDGET_SCRIPT_TIMEOUT_MS) plus a margin. */
const WIDGET_WAIT_MS = 12_000;

/**
 * The personal page binds OIDC, GitHub and LinuxDO accounts through the provider's sign-in (the state is bound to
 * the session) and a WeChat account with its code, and unbinds each while another way in is left; the Telegram and Turnstile widgets say so when their script
 * fails or never arrives, instead of showing nothing.
 */
describe('account bindings and widget fallbacks in Chromium', () => {
  let h: Harness;
  let mock: MockOAuth;
  let root: Session;
  let page: Page;

  const self = () =>
    apiAs<{ oidc_id: string; wechat_id: string; github_id: string; linux_do_id: string }>(
      root,
      'GET',
      '/api/user/self',
    );

  /**
   * The provider's authorize page, played in the browser: it signs `user` in at once and sends the browser back to
   * the console's callback with a code the mock's token endpoint trades for that user, and the state it was given.
   */
  const answerAuthorize = async (provider: 'github' | 'linuxdo', pattern: string, user: Record<string, unknown>) => {
    await page.route(pattern, async (r) => {
      const asked = new URL(r.request().url());
      const back = new URL(asked.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', mock.issueCode(provider, user));
      back.searchParams.set('state', asked.searchParams.get('state')!);
      await r.fulfill({ status: 302, headers: { location: back.toString() } });
    });
  };

  beforeAll(async () => {
    mock = await startMockOAuth();
    // GitHub's and LinuxDO's token and user endpoints are the mock's (their authorize pages are answered below).
    h = await startHarness(mock.env);
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    for (const [key, value] of [
      ['oidc.enabled', 'true'],
      ['oidc.client_id', MOCK_CLIENTS.oidc.id],
      ['oidc.client_secret', MOCK_CLIENTS.oidc.secret],
      ['oidc.authorization_endpoint', `${mock.url}/oidc/authorize`],
      ['oidc.token_endpoint', `${mock.url}/oidc/token`],
      ['oidc.user_info_endpoint', `${mock.url}/oidc/userinfo`],
      ['WeChatAuthEnabled', 'true'],
      ['WeChatServerAddress', `${mock.url}/`],
      ['WeChatServerToken', MOCK_WECHAT_TOKEN],
      ['GitHubOAuthEnabled', 'true'],
      ['GitHubClientId', MOCK_CLIENTS.github.id],
      ['GitHubClientSecret', MOCK_CLIENTS.github.secret],
      ['LinuxDOOAuthEnabled', 'true'],
      ['LinuxDOClientId', MOCK_CLIENTS.linuxdo.id],
      ['LinuxDOClientSecret', MOCK_CLIENTS.linuxdo.secret],
      ['TelegramOAuthEnabled', 'true'],
      ['TelegramBotToken', '123456:spec18-bot-token'],
      ['TelegramBotName', 'tollway_spec18_bot'],
    ]) {
      await apiAs(root, 'PUT', '/api/option/', { key, value });
    }
    ({ page } = await h.newPage());
    await page.context().addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('login-username').waitFor({ timeout: 45_000 });
    await login(page, ROOT);
  }, 90_000);
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('binds OIDC through the provider and comes back to the personal page; its only binding is kept', async () => {
    mock.oidcUser = { sub: 'spec18-sub', preferred_username: 'grace', name: 'Grace', email: 'grace@idp.test' };
    await page.goto('/app/me');
    await page.getByTestId('me-bind-oidc').click();
    await page.waitForURL((u) => u.pathname === '/app/me' && !u.search.includes('code'), { timeout: 20_000 });
    await expect.poll(async () => (await self()).oidc_id).toBe('spec18-sub');
    await page.getByTestId('me-unbind-oidc').waitFor();
    await h.shot(page, 'spec18-bindings-oidc-bound');
    // No email and no other account: unbinding would leave no way to recover the account.
    await page.getByTestId('me-unbind-oidc').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-oidc').click();
    await page.locator('.ant-message-notice', { hasText: 'only way to sign in' }).waitFor();
    await h.shot(page, 'spec18-bindings-only-one');
    expect((await self()).oidc_id).toBe('spec18-sub');
  });

  it('binds WeChat with the code its account sends; then OIDC can be unbound', async () => {
    await page.goto('/app/me');
    await page.getByTestId('me-bind-wechat').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-bind-wechat-code').fill(mock.issueCode('wechat', 'spec18-openid'));
    await page.getByTestId('me-bind-wechat-submit').click();
    await page.getByTestId('me-unbind-wechat').waitFor();
    expect((await self()).wechat_id).toBe('spec18-openid');
    await h.shot(page, 'spec18-bindings-wechat-bound');
    await page.getByTestId('me-unbind-oidc').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-oidc').click();
    await page.getByTestId('me-bind-oidc').waitFor();
    expect((await self()).oidc_id).toBe('');
  });

  it('binds GitHub and LinuxDO through their sign-in pages, unbinds WeChat and GitHub, keeps the last way in', async () => {
    await answerAuthorize('github', 'https://github.com/login/oauth/authorize?**', {
      id: 9318,
      login: 'octo18',
      name: 'Octo 18',
      email: 'octo18@gh.test',
    });
    await answerAuthorize('linuxdo', 'https://connect.linux.do/oauth2/authorize?**', {
      id: 7318,
      username: 'forum18',
      name: 'Forum 18',
      trust_level: 2,
      active: true,
      silenced: false,
    });
    await page.goto('/app/me');
    await page.getByTestId('me-bind-github').click();
    await page.waitForURL((u) => u.pathname === '/app/me' && !u.search.includes('code'), { timeout: 20_000 });
    await page.getByTestId('me-unbind-github').waitFor();
    expect((await self()).github_id).toBe('9318');
    // WeChat (bound above) can go now that GitHub is a way in.
    await page.getByTestId('me-unbind-wechat').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-wechat').click();
    await page.getByTestId('me-bind-wechat').waitFor();
    expect((await self()).wechat_id).toBe('');
    await page.getByTestId('me-bind-linuxdo').click();
    await page.waitForURL((u) => u.pathname === '/app/me' && !u.search.includes('code'), { timeout: 20_000 });
    await page.getByTestId('me-unbind-linuxdo').waitFor();
    expect((await self()).linux_do_id).toBe('7318');
    await h.shot(page, 'spec18-bindings-github-linuxdo-bound');
    await page.getByTestId('me-unbind-github').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-github').click();
    await page.getByTestId('me-bind-github').waitFor();
    expect((await self()).github_id).toBe('');
    // LinuxDO is now the only way in (no e-mail, no other account): its unbind is refused.
    await page.getByTestId('me-unbind-linuxdo').click();
    await motionSettled(page); // until it has opened: a click while it still moves can miss
    await page.getByTestId('me-unbind-confirm-linuxdo').click();
    await page.locator('.ant-message-notice', { hasText: 'only way to sign in' }).waitFor();
    expect((await self()).linux_do_id).toBe('7318');
    await page.unroute('https://github.com/login/oauth/authorize?**');
    await page.unroute('https://connect.linux.do/oauth2/authorize?**');
  });

  it('says the Telegram widget could not load when its script fails', async () => {
    await page.route('https://telegram.org/**', (r) => r.abort());
    await page.goto('/app/me');
    await page.getByTestId('me-bind-telegram').click();
    await page.getByTestId('oauth-telegram-failed').waitFor({ timeout: WIDGET_WAIT_MS });
    expect(await page.getByTestId('oauth-telegram-failed').textContent()).toBe(
      'The Telegram sign-in widget could not load; check your network and reload the page',
    );
    await h.shot(page, 'spec18-telegram-fallback');
    await page.unroute('https://telegram.org/**');
  });

  it('says the human verification could not load when its script never arrives', async () => {
    await apiAs(root, 'PUT', '/api/option/', { key: 'TurnstileSiteKey', value: 'spec18-site' });
    await apiAs(root, 'PUT', '/api/option/', { key: 'TurnstileSecretKey', value: 'spec18-secret' });
    await apiAs(root, 'PUT', '/api/option/', { key: 'TurnstileCheckEnabled', value: 'true' });
    const { context, page: guest } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    // The request is held and never answered: no load, no error event.
    await guest.route('https://challenges.cloudflare.com/**', () => undefined);
    await guest.goto('/login');
    await guest.getByTestId('turnstile').waitFor({ timeout: 45_000 });
    await guest.getByTestId('turnstile-failed').waitFor({ timeout: WIDGET_WAIT_MS });
    await h.shot(guest, 'spec18-turnstile-fallback');
    await context.close();
    await apiAs(root, 'PUT', '/api/option/', { key: 'TurnstileCheckEnabled', value: 'false' });
  });
});
