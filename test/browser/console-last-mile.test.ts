import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs as api, loginSession, type Session } from './api-session.js';
import { SCREENSHOTS, type Harness } from './harness.js';
import { openAs, ROOT, seedUsers, startPrivateHarness, VIEWPORTS, type Lang } from './tables-fixture.js';

type State = Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>;

const ADMIN = { username: 'lm-admin', password: 'lm-admin-pass-1' };
const ADMIN2 = { username: 'lm-admin2', password: 'lm-admin-pass-2' };
const GONE = { username: 'lm-gone', password: 'lm-gone-pass-1' };
const FAIL_KEY = 'lm-failing-upstream-key';

const TEXT = {
  zh: {
    exhausted: '已耗尽',
    expired: '已过期',
    enabled: '已启用',
    baidu: '百度文心',
    ali: '阿里通义千问',
    failed: '失败',
    testFailed: '测试失败',
    outranked: '只能管理权限低于你的用户',
    twoFactorSelf: '请在个人设置中关闭自己的两步验证',
    deleted: '用户已被删除',
    reserved: '保留 28',
  },
  en: {
    exhausted: 'Exhausted',
    expired: 'Expired',
    enabled: 'Enabled',
    baidu: 'Baidu Wenxin',
    ali: 'Ali Tongyi Qianwen',
    failed: 'Failed',
    testFailed: 'Test failed',
    outranked: 'You can only manage users below your own level',
    twoFactorSelf: 'Turn off your own two-factor authentication in personal settings',
    deleted: 'The user has been deleted',
    reserved: 'Reserved 28',
  },
} as const;

/** The tooltip text shown after hovering `target` (antd renders it in a portal). */
async function hoverText(page: Page, target: ReturnType<Page['locator']>): Promise<string> {
  await target.hover();
  const tip = page.locator('.ant-tooltip:not(.ant-tooltip-hidden) .ant-tooltip-container').last();
  await tip.waitFor();
  return (await tip.textContent()) ?? '';
}

/**
 * Issue 34's console findings, in Chromium against the real server: token states the server enforces, failing
 * channels shown failing, channel type names in the console's language, edit buttons only where the server allows,
 * one-line keys, invite rows in currency, a deleted account told so at sign-in, and LinuxDO's own mark.
 */
describe('the last mile of the console (issue 34) in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  const state: State = new Map();
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    h = await startPrivateHarness();
    ({ root } = await seedUsers(h));
    mock = await startMockUpstream();
    mock.behaviors.set(FAIL_KEY, { failStatus: 500, failMessage: 'upstream overloaded' });
    for (const who of [ADMIN, ADMIN2])
      await api(root, 'POST', '/api/user/', { ...who, display_name: who.username, role: 10 });
    await api(root, 'POST', '/api/user/', { ...GONE, display_name: GONE.username });
    const users = await api<{ items: { id: number; username: string }[] }>(root, 'GET', '/api/user/?p=1&page_size=50');
    for (const u of users.items) ids[u.username] = u.id;
    await api(root, 'POST', '/api/user/manage', { id: ids[GONE.username], action: 'delete' });

    // Tokens: used up, a few quota left, expiring in a moment, and a healthy one.
    const token = async (name: string, body: Record<string, unknown>) => {
      await api(root, 'POST', '/api/token/', { name, unlimited_quota: false, ...body });
      const list = await api<{ items: { id: number; name: string }[] }>(root, 'GET', '/api/token/?p=1&page_size=50');
      ids[name] = list.items.find((t) => t.name === name)!.id;
    };
    await token('lm-exhausted', { remain_quota: 0 });
    await token('lm-crumbs', { remain_quota: 37 });
    await token('lm-expiring', { remain_quota: 500_000, expired_time: Math.floor(Date.now() / 1000) + 2 });
    await token('lm-healthy', { remain_quota: 5_000_000 });

    // Channels: one whose upstream fails, and two Chinese vendors.
    const channel = async (name: string, type: number, key: string) => {
      const made = await api<{ ids: number[] }>(root, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { name, type, key, base_url: mock.url, models: 'gpt-4o-mini', group: 'default' },
      });
      ids[name] = made.ids[0]!;
    };
    await channel('lm-failing', 1, FAIL_KEY);
    await channel('lm-baidu', 15, 'baidu-key|baidu-secret');
    await channel('lm-ali', 17, 'ali-key-0123456789');

    // An invitation: the inviter's reward and the invitee's bonus are logged.
    for (const [key, value] of [
      ['AffEnabled', 'true'],
      ['QuotaForInviter', '250000'],
      ['QuotaForInvitee', '100000'],
      ['LinuxDOClientId', 'lm-linuxdo-client'],
      ['LinuxDOClientSecret', 'lm-linuxdo-secret'],
      ['LinuxDOOAuthEnabled', 'true'],
    ])
      await api(root, 'PUT', '/api/option/', { key, value });
    const aff = await api<string>(root, 'GET', '/api/user/aff');
    await fetch(`${h.baseUrl}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'lm-invitee', password: 'lm-invitee-pass', aff_code: aff }),
    });
    // The expiring token is past its time from here on.
    await new Promise((r) => setTimeout(r, 2500));
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  for (const lang of ['zh', 'en'] as Lang[]) {
    const tx = TEXT[lang];

    for (const [width, viewport] of [
      ['desktop', VIEWPORTS.desktop],
      ['phone', VIEWPORTS.phone],
    ] as const) {
      it(`tokens: exhausted and expired shown as such, small balances exact, keys on one line (${lang}, ${width})`, async () => {
        const { context, page } = await openAs(h, ROOT, lang, viewport, state);
        await page.goto('/app/tokens');
        await page.getByTestId(`token-status-${ids['lm-healthy']}`).waitFor();
        await expect
          .poll(() => page.getByTestId(`token-status-${ids['lm-exhausted']}`).textContent())
          .toBe(tx.exhausted);
        expect(await page.getByTestId(`token-status-${ids['lm-expiring']}`).textContent()).toBe(tx.expired);
        expect(await page.getByTestId(`token-status-${ids['lm-healthy']}`).textContent()).toBe(tx.enabled);
        // 37 quota is $0.000074: never an empty-looking $0.00.
        expect(await page.getByTestId(`token-remain-${ids['lm-crumbs']}`).textContent()).toBe('$0.000074');
        for (const name of ['lm-exhausted', 'lm-crumbs', 'lm-expiring', 'lm-healthy']) {
          const key = page.getByTestId(`token-key-${ids[name]}`);
          const style = await key.evaluate((el) => {
            const cs = getComputedStyle(el);
            return { ws: cs.whiteSpace, font: cs.fontFamily, h: el.getBoundingClientRect().height };
          });
          expect(style.ws, name).toBe('nowrap');
          expect(style.font, name).toMatch(/mono/i);
          expect(style.h, name).toBeLessThan(24);
          expect(await key.textContent(), name).toMatch(/^sk-[A-Za-z0-9]{4}\*{10}[A-Za-z0-9]{4}$/);
          // A masked key is shown whole (only a revealed one is cut).
          expect(await key.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), name).toBe(true);
        }
        // Revealed, the full key is still one line (cut, whole on hover) and its text the whole key.
        const healthy = page.getByTestId(`token-key-${ids['lm-healthy']}`);
        await page.getByTestId(`token-key-show-${ids['lm-healthy']}`).click();
        await expect.poll(() => healthy.textContent()).toMatch(/^sk-[A-Za-z0-9]{48}$/);
        const fit = await healthy.evaluate((el) => {
          const cell = el.closest('td, .ant-descriptions-item-content, .tw-card-value') ?? el.parentElement!;
          return {
            h: el.getBoundingClientRect().height,
            right: el.getBoundingClientRect().right,
            edge: cell.getBoundingClientRect().right,
          };
        });
        expect(fit.h).toBeLessThan(24);
        expect(fit.right).toBeLessThanOrEqual(fit.edge + 1);
        await h.shot(page, `last-mile-tokens-${lang}-${width}`);
        await context.close();
      });

      it(`channels: a failed test shows failing, type names translated and whole on hover (${lang}, ${width})`, async () => {
        const { context, page } = await openAs(h, ROOT, lang, viewport, state);
        await page.goto('/admin/channels');
        const id = ids['lm-failing']!;
        await page.getByTestId(`channel-test-${id}`).waitFor();
        if (width === 'desktop' && lang === 'zh') {
          // The operator tests it from the list: the failure comes back and the row turns red.
          await page.getByTestId(`channel-test-${id}`).click();
          await page.locator('.ant-message-notice').first().waitFor();
        } else {
          await api(root, 'GET', `/api/channel/test/${id}`).catch(() => undefined);
          await page.reload();
        }
        await expect.poll(() => page.getByTestId(`channel-speed-${id}`).getAttribute('data-speed')).toBe('failed');
        expect(await page.getByTestId(`channel-speed-${id}`).textContent()).toBe(tx.failed);
        const health = page.getByTestId(`channel-health-${id}`);
        await expect.poll(() => health.getAttribute('data-state')).not.toBe('closed');
        expect(await health.textContent()).not.toMatch(/^(健康|Healthy)$/);
        const baidu = page.getByTestId(`channel-type-${ids['lm-baidu']}`);
        const ali = page.getByTestId(`channel-type-${ids['lm-ali']}`);
        expect(await baidu.textContent()).toBe(tx.baidu);
        expect(await ali.textContent()).toBe(tx.ali);
        // A label wider than its column is cut with an ellipsis, and its hover names it whole.
        const cut = await ali.evaluate((el) => ({
          over: el.scrollWidth > el.clientWidth + 1,
          ellipsis: getComputedStyle(el).textOverflow,
        }));
        if (cut.over) expect(cut.ellipsis).toBe('ellipsis');
        // A six-character Chinese name fits the column whole.
        if (lang === 'zh') expect(cut.over).toBe(false);
        if (width === 'desktop') expect(await hoverText(page, ali)).toContain(tx.ali);
        await page.mouse.move(0, 0);
        await h.shot(page, `last-mile-channels-${lang}-${width}`);
        await context.close();
      });
    }

    it(`channel editor: types named in ${lang}, reserved ids not offered`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, VIEWPORTS.desktop, state);
      await page.goto('/channel/add');
      const select = page.getByTestId('channel-form-type');
      await select.waitFor();
      await select.click();
      await page.keyboard.type('15');
      await expect
        .poll(() => page.locator('.ant-select-item-option').allTextContents())
        .toContainEqual(expect.stringContaining(tx.baidu));
      await h.shot(page, `last-mile-channel-types-${lang}`);
      for (const q of ['28', 'Reserved', '保留']) {
        await page.keyboard.press('Control+A');
        await page.keyboard.type(q);
        await page.waitForTimeout(150);
        const shown = await page.locator('.ant-select-item-option').allTextContents();
        expect(shown.join('|'), q).not.toContain(tx.reserved);
        expect(
          shown.some((s) => /^(Reserved|保留)/.test(s)),
          q,
        ).toBe(false);
      }
      await context.close();
    });

    it(`users: an admin's edit, add-quota and 2FA reset are disabled on users at or above their level, saying why (${lang})`, async () => {
      const { context, page } = await openAs(h, ADMIN, lang, VIEWPORTS.desktop, state);
      await page.goto('/admin/users');
      const common = page.getByTestId(`user-action-edit-${ids['tbluser']}`);
      await common.waitFor();
      expect(await common.isEnabled()).toBe(true);
      expect(await page.getByTestId(`user-action-reset-2fa-${ids['tbluser']}`).isEnabled()).toBe(true);
      for (const name of [ROOT.username, ADMIN2.username]) {
        const id = ids[name]!;
        expect(await page.getByTestId(`user-action-edit-${id}`).isDisabled(), name).toBe(true);
        expect(await page.getByTestId(`user-action-quota-${id}`).isDisabled(), name).toBe(true);
        expect(await page.getByTestId(`user-action-reset-2fa-${id}`).isDisabled(), name).toBe(true);
      }
      expect(await hoverText(page, page.getByTestId(`user-action-edit-${ids[ADMIN2.username]}-why`))).toBe(
        tx.outranked,
      );
      expect(await hoverText(page, page.getByTestId(`user-action-reset-2fa-${ids[ADMIN2.username]}-why`))).toBe(
        tx.outranked,
      );
      // Their own row: two-factor sign-in is turned off in personal settings, not here (once the last tooltip went).
      await page.mouse.move(0, 0);
      await expect.poll(() => page.locator('.ant-tooltip:not(.ant-tooltip-hidden)').count()).toBe(0);
      expect(await page.getByTestId(`user-action-reset-2fa-${ids[ADMIN.username]}`).isDisabled()).toBe(true);
      expect(await hoverText(page, page.getByTestId(`user-action-reset-2fa-${ids[ADMIN.username]}-why`))).toBe(
        tx.twoFactorSelf,
      );
      await h.shot(page, `last-mile-users-${lang}`);
      await context.close();
    });

    it(`logs: the invite rows show their quota in currency (${lang})`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, VIEWPORTS.desktop, state);
      await page.goto('/app/logs/api-usage');
      const table = page.getByTestId('logs-table');
      await table.waitFor();
      await expect.poll(() => table.textContent()).toContain('lm-invitee');
      const text = (await table.textContent()) ?? '';
      // The inviter's reward (250000 quota) and the invitee's bonus (100000) in dollars beside the quota.
      expect(text).toMatch(/250000[^$]*[（(]\$0\.50[)）]/);
      expect(text).toMatch(/100000[^$]*[（(]\$0\.20[)）]/);
      await h.shot(page, `last-mile-logs-${lang}`);
      await context.close();
    });

    it(`login: a deleted account is told it was deleted; LinuxDO has its own mark (${lang})`, async () => {
      const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport: VIEWPORTS.desktop });
      await context.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      const page = await context.newPage();
      await page.goto('/login');
      await page.getByTestId('login-username').waitFor({ timeout: 30_000 });
      const linuxdo = page.getByTestId('oauth-linuxdo');
      await linuxdo.waitFor();
      expect(await linuxdo.locator('[data-testid="linuxdo-icon"] svg').count()).toBe(1);
      expect(await linuxdo.textContent()).not.toMatch(/^L/);
      await linuxdo.screenshot({
        path: path.join(SCREENSHOTS, `last-mile-linuxdo-button-${lang}.png`),
        scale: 'device',
      });
      await page.getByTestId('login-username').fill(GONE.username);
      await page.getByTestId('login-password').fill(GONE.password);
      await page.getByTestId('login-submit').click();
      const toast = page.locator('.ant-message-notice').first();
      await toast.waitFor();
      expect(await toast.textContent()).toContain(tx.deleted);
      expect(new URL(page.url()).pathname).toBe('/login');
      await h.shot(page, `last-mile-login-${lang}`);
      await context.close();
    });
  }

  it('the deleted account cannot sign in through the API either', async () => {
    await expect(loginSession(h.baseUrl, GONE)).rejects.toThrow(/deleted/);
  });
});
