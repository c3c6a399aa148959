import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../packages/server/src/modules/twofa/totp.js';
import {
  clickWhenIdle,
  dropSession,
  login,
  logout,
  pageApi,
  SCREENSHOTS,
  startHarness,
  type Harness,
} from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const CAROL = { username: 'carol', password: 'carol-pass-123' };
const DAVE = { username: 'dave', password: 'dave-pass-1234' };
const STEP_MS = 30_000;

/** The password step of the login form, which for a 2FA user ends on /login/2fa. */
async function passwordStep(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => u.pathname === '/login/2fa');
}

/** Two-factor sign-in through the console: setup from the manual key, login with a TOTP code and a backup code. */
describe('two-factor sign-in in Chromium', () => {
  let h: Harness;
  let page: Page;
  let secret = '';
  let backupCodes: string[] = [];
  /** The TOTP step last used; each use needs a later one (a code is accepted once). */
  let lastStep = 0;
  const nextCode = () => {
    const step = Math.max(lastStep + 1, Math.floor(Date.now() / STEP_MS));
    lastStep = step;
    return totpCode(secret, step * STEP_MS);
  };

  beforeAll(async () => {
    h = await startHarness();
    ({ page } = await h.newPage());
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
    await login(page, ROOT);
    for (const u of [
      { ...CAROL, role: 1 },
      { ...DAVE, role: 10 },
    ]) {
      expect((await pageApi(page, 'POST', '/api/user/', { ...u, display_name: u.username })).success).toBe(true);
    }
    await dropSession(page);
  }, 60_000);
  afterAll(async () => h?.close());

  it('turns 2FA on in personal settings: QR code, manual key, first code, backup codes shown once', async () => {
    await login(page, CAROL);
    await page.goto('/app/me');
    const card = page.getByTestId('twofa-card');
    await expect.poll(() => card.getByTestId('twofa-state').textContent()).toBe('未启用');
    await card.getByTestId('twofa-enable').click();
    await page.getByTestId('twofa-qr').waitFor();
    secret = /[A-Z2-7]{32}/.exec((await page.getByTestId('twofa-secret').textContent()) ?? '')![0];
    expect(await page.getByTestId('twofa-qr').locator('canvas, svg').count()).toBeGreaterThan(0);
    await h.shot(page, 'twofa-01-setup-qr-and-key');
    await page.getByTestId('twofa-setup-code').fill(nextCode());
    await page.getByTestId('twofa-setup-verify').click();
    const codes = page.getByTestId('twofa-backup-code');
    await expect.poll(() => codes.count()).toBe(10);
    backupCodes = (await codes.allTextContents()).map((c) => c.trim());
    for (const c of backupCodes) expect(c).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    const download = page.waitForEvent('download');
    await page.getByTestId('twofa-backup-download').click();
    expect((await download).suggestedFilename()).toBe('carol-backup-codes.txt');
    await h.shot(page, 'twofa-02-backup-codes-once');
    await page.getByTestId('twofa-setup-done').click();
    await expect.poll(() => card.getByTestId('twofa-state').textContent()).toBe('已启用');
    await expect.poll(() => card.getByTestId('twofa-remaining').textContent()).toBe('剩余备用码：10 个');
    // Shown once: the codes are nowhere on the page any more.
    await expect.poll(() => page.getByTestId('twofa-backup-code').count()).toBe(0);
    await h.shot(page, 'twofa-03-card-enabled');
  });

  it('after logout the password alone is not enough; a TOTP code computed here completes the sign-in', async () => {
    await logout(page);
    await passwordStep(page, CAROL);
    expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
    await page.getByTestId('twofa-login-code').fill('000000');
    await page.getByTestId('twofa-login-submit').click();
    await page.getByText('验证码或备用码错误，请重试').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login/2fa');
    await h.shot(page, 'twofa-04-login-step-wrong-code');
    await page.getByTestId('twofa-login-code').fill(nextCode());
    await clickWhenIdle(page.getByTestId('twofa-login-submit'));
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    const self = await pageApi<{ username: string }>(page, 'GET', '/api/user/self');
    expect(self.data?.username).toBe('carol');
  });

  it('a backup code signs in once', async () => {
    await logout(page);
    await passwordStep(page, CAROL);
    await page.getByTestId('twofa-login-toggle').click();
    await page.getByTestId('twofa-login-code').fill(backupCodes[0]!);
    await h.shot(page, 'twofa-05-login-backup-code');
    await page.getByTestId('twofa-login-submit').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    expect(
      (await pageApi<{ backup_codes_remaining: number }>(page, 'GET', '/api/user/2fa/status')).data
        ?.backup_codes_remaining,
    ).toBe(9);

    await logout(page);
    await passwordStep(page, CAROL);
    await page.getByTestId('twofa-login-toggle').click();
    await page.getByTestId('twofa-login-code').fill(backupCodes[0]!);
    await page.getByTestId('twofa-login-submit').click();
    await page.getByText('验证码或备用码错误，请重试').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login/2fa');
  });

  it("root resets a user's 2FA from user management", async () => {
    await page.goto('/login');
    await login(page, ROOT);
    const carol = (
      await pageApi<{ items: { id: number; username: string }[] }>(
        page,
        'GET',
        '/api/user/search?keyword=carol&p=1&page_size=10',
      )
    ).data!.items[0]!;
    await page.goto('/admin/users');
    await page.getByTestId(`user-action-reset-2fa-${carol.id}`).click();
    await h.shot(page, 'twofa-06-admin-reset-confirm');
    await page.getByTestId(`user-action-reset-2fa-confirm-${carol.id}`).click();
    await page.getByText('已重置该用户的两步验证').waitFor();
    await logout(page);
    await login(page, CAROL);
    expect((await pageApi<{ enabled: boolean }>(page, 'GET', '/api/user/2fa/status')).data?.enabled).toBe(false);
    await logout(page);
  });

  it('with the switch on, an administrator without 2FA is taken to its setup', async () => {
    await login(page, ROOT);
    // Root sets up 2FA first (else the switch holds root back too), then turns the switch on in system settings.
    const rootSetup = await pageApi<{ secret: string }>(page, 'POST', '/api/user/2fa/setup', {});
    expect(
      (await pageApi(page, 'POST', '/api/user/2fa/enable', { code: totpCode(rootSetup.data!.secret) })).success,
    ).toBe(true);
    await page.goto('/admin/settings?tab=system');
    const toggle = page.getByTestId('option-TwoFactorRequiredForAdmins');
    await toggle.scrollIntoViewIfNeeded();
    await toggle.click();
    await page
      .getByText('开启后，所有未启用两步验证的管理员（包括你自己）都必须先完成设置才能继续使用管理功能。')
      .waitFor();
    await page
      .locator('.ant-modal-confirm')
      .screenshot({ path: path.join(SCREENSHOTS, 'twofa-07-settings-switch-confirm.png') });
    await page.locator('.ant-modal-confirm-btns .ant-btn-primary').click();
    await page.getByTestId('settings-save-login').click();
    await expect
      .poll(
        async () =>
          (await pageApi<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data?.find(
            (o) => o.key === 'TwoFactorRequiredForAdmins',
          )?.value,
      )
      .toBe('true');
    await page
      .getByTestId('settings-section-login')
      .screenshot({ path: path.join(SCREENSHOTS, 'twofa-08-settings-switch-on.png') });
    await logout(page);

    // Every refused call of the first screen asks to go to the setup; the console leaves once (a second
    // assignment would abort the first load).
    const setupLoads: string[] = [];
    const onRequest = (r: Request) => {
      if (r.isNavigationRequest() && new URL(r.url()).searchParams.get('twofa') === 'setup') setupLoads.push(r.url());
    };
    page.on('request', onRequest);
    await login(page, DAVE);
    await page.waitForURL((u) => u.pathname === '/app/me' && u.searchParams.get('twofa') === 'setup');
    await page.getByTestId('twofa-required').waitFor();
    await page.getByTestId('twofa-qr').waitFor();
    await page.waitForLoadState('networkidle');
    page.off('request', onRequest);
    expect(setupLoads).toHaveLength(1);
    await h.shot(page, 'twofa-09-admin-forced-setup');
    expect((await pageApi(page, 'GET', '/api/user/?p=1&page_size=10')).message).toBe(
      'two-factor authentication is required for administrators: set it up in personal settings first',
    );
  });
});
