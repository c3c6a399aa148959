import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LDAP_PEOPLE,
  LDAP_SERVICE_DN,
  LDAP_SERVICE_PASSWORD,
  startSlapd,
  type Slapd,
} from '../../packages/server/test/support/slapd.js';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { startHarness, type Harness } from './harness.js';

const ROOT = { username: 'ldaproot', password: 'ldap-root-pass-1' };

/** Directory sign-in through the console's login form against slapd; the mapped group shows on the personal page. */
describe('LDAP sign-in in Chromium', () => {
  let h: Harness;
  let slapd: Slapd;
  let root: Session;
  beforeAll(async () => {
    slapd = await startSlapd();
    await slapd.addPerson({ uid: 'grace', password: 'grace-pw', cn: 'Grace Hopper', mail: 'grace@example.org' });
    await slapd.addGroup('gpu-users', ['grace']);
    h = await startHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    const options: Record<string, string> = {
      LDAPServerURL: slapd.ldapsUrl,
      LDAPTLSCACert: slapd.caCert,
      LDAPBindDN: LDAP_SERVICE_DN,
      LDAPBindPassword: LDAP_SERVICE_PASSWORD,
      LDAPBaseDN: LDAP_PEOPLE,
      LDAPGroupMapping: JSON.stringify({ 'gpu-users': 'vip' }),
      LDAPEnabled: 'true',
    };
    for (const [key, value] of Object.entries(options)) await apiAs(root, 'PUT', '/api/option/', { key, value });
  });
  afterAll(async () => {
    await h?.close();
    await slapd?.stop();
  });

  it('signs in with the directory tab, shows the mapped group, and refuses a wrong password in the form', async () => {
    const { page, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('ldap-login-form').waitFor();
    expect(await page.getByTestId('login-tabs').getByRole('tab').allTextContents()).toEqual([
      'Directory (LDAP)',
      'Password',
    ]);
    await page.getByTestId('ldap-username').fill('grace');
    await page.getByTestId('ldap-password').fill('wrong');
    await page.getByTestId('ldap-submit').click();
    await expect
      .poll(() => page.locator('.ant-message').textContent())
      .toContain('The directory username or password is wrong');
    await h.shot(page, 'ldap-login-01-refused');

    await page.getByTestId('ldap-password').fill('grace-pw');
    await page.getByTestId('ldap-submit').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    await page.goto('/app/me');
    const card = page.getByTestId('me-balance-card');
    await expect.poll(() => card.textContent()).toContain('@grace');
    expect(await card.textContent()).toContain('vip');
    expect(await page.getByTestId('me-display-name').textContent()).toContain('Grace Hopper');
    // Linked accounts lists the directory account the sign-in bound.
    const row = page.getByTestId('me-binding-ldap');
    await expect.poll(() => row.textContent()).toContain('grace');
    expect(await row.getByTestId('me-unbind-ldap').count()).toBe(1);
    await h.shot(page, 'ldap-login-02-me');
    await context.close();
  });

  it('offers the directory tab in Chinese too (the console default)', async () => {
    const { page, context } = await h.newPage();
    await page.goto('/login');
    await page.getByTestId('ldap-login-form').waitFor();
    expect(await page.getByTestId('login-tabs').getByRole('tab').allTextContents()).toEqual([
      '目录账号（LDAP）',
      '账号密码',
    ]);
    expect(await page.getByTestId('ldap-submit').textContent()).toContain('使用目录账号登录');
    await h.shot(page, 'ldap-login-04-zh');
    await context.close();
  });

  it('shows root the directory settings with the bind password write-only', async () => {
    const { page, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    // The directory tab comes first; root signs in with the password tab.
    await page.goto('/login');
    await page.getByTestId('login-tabs').getByRole('tab', { name: 'Password' }).click();
    await page.getByTestId('login-username').fill(ROOT.username);
    await page.getByTestId('login-password').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
    await page.goto('/admin/settings?tab=system');
    const section = page.getByTestId('settings-section-ldap');
    await section.scrollIntoViewIfNeeded();
    expect(await section.textContent()).toContain('Directory sign-in (LDAP / Active Directory)');
    const bind = section.getByTestId('option-LDAPBindPassword');
    expect(await bind.inputValue()).toBe('');
    expect(await bind.getAttribute('type')).toBe('password');
    expect(await section.getByTestId('option-LDAPServerURL').inputValue()).toBe(slapd.ldapsUrl);
    await h.shot(page, 'ldap-login-03-settings');
    await context.close();
  });
});
