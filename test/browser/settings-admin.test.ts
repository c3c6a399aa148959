import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { login, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'setroot', password: 'set-root-pass-1' };
const ADMIN = { username: 'setadmin', password: 'set-admin-pass-1' };

/** The operation tabs an administrator sees; the system tab (sign-in, mail, addresses, payment) is root's. */
const ADMIN_TABS = ['operation', 'ratelimit', 'models', 'other'];

/**
 * Issue 34: an administrator opens System settings and gets the operation settings (no "cannot load", no
 * permission error), without root's tabs and fields; the section nav's jump leaves the section's top in view.
 */
describe('settings as an administrator in Chromium', () => {
  let h: Harness;
  let root: Session;

  beforeAll(async () => {
    h = await startHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops', role: 10 });
    await apiAs(root, 'PUT', '/api/option/', { key: 'Footer', value: 'root-footer-text' });
  });
  afterAll(async () => h?.close());

  /** A page signed in as `who` in `lang`, recording every refused /api answer (403, or success false). */
  async function open(who: typeof ADMIN, lang: 'zh' | 'en') {
    const { page } = await h.newPage();
    await page.context().addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
    const refused: string[] = [];
    page.on('response', async (res) => {
      if (!new URL(res.url()).pathname.startsWith('/api/')) return;
      const body = (await res.json().catch(() => undefined)) as { success?: boolean } | undefined;
      if (res.status() >= 400 || body?.success === false) refused.push(`${res.status()} ${res.url()}`);
    });
    await login(page, who);
    return { page, refused };
  }

  const visibleTabs = async (page: Page) =>
    (await page.locator('[data-testid^="settings-tab-"]').evaluateAll((els) => els.map((e) => e.dataset.testid)))
      .map((id) => id!.replace('settings-tab-', ''))
      .sort();

  for (const lang of ['zh', 'en'] as const) {
    it(`loads the operation settings in ${lang}, without root's tabs and fields`, async () => {
      const { page, refused } = await open(ADMIN, lang);
      await page.goto('/admin/settings');
      await page.getByTestId('settings-section-operation-general').waitFor();
      expect(await visibleTabs(page)).toEqual([...ADMIN_TABS].sort());
      const text = (await page.locator('body').textContent()) ?? '';
      for (const bad of ['无法加载设置', '无权进行此操作', 'could not be loaded', 'No permission'])
        expect(text, bad).not.toContain(bad);
      // Log clean-up deletes logs (root's call): not offered.
      expect(await page.getByTestId('log-clean').count()).toBe(0);
      await h.shot(page, `settings-admin-${lang}-operation`);

      // The other tab: branding, without the HTML and custom code root alone sets.
      await page.getByTestId('settings-tab-other').click();
      await page.getByTestId('settings-section-branding').waitFor();
      expect(await page.getByTestId('option-SystemName').count()).toBe(1);
      for (const id of ['settings-section-notice', 'settings-section-content', 'settings-section-custom-code'])
        expect(await page.getByTestId(id).count(), id).toBe(0);
      expect(await page.getByTestId('option-Footer').count()).toBe(0);
      // Named for what it holds: no footer in the administrator's title.
      expect(await page.getByTestId('settings-section-branding').textContent()).toContain(
        lang === 'zh' ? '系统名称与 Logo' : 'System name and logo',
      );
      await h.shot(page, `settings-admin-${lang}-other`);

      // Asking for the system tab by address lands on the operation tab.
      await page.goto('/admin/settings?tab=system');
      await page.getByTestId('settings-section-operation-general').waitFor();
      expect(await page.getByTestId('settings-section-smtp').count()).toBe(0);

      expect(await page.locator('.ant-message-error').count()).toBe(0);
      expect(refused).toEqual([]);
    });
  }

  it('saves an operation setting as an administrator', async () => {
    const { page, refused } = await open(ADMIN, 'en');
    await page.goto('/admin/settings?tab=operation');
    const field = page.getByTestId('option-RetryTimes');
    await field.fill('2');
    await page.getByTestId('settings-save-operation-general').click();
    await expect.poll(() => page.locator('.ant-message').textContent()).toContain('Settings updated');
    const options = await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
    expect(options.find((o) => o.key === 'RetryTimes')!.value).toBe('2');
    expect(refused).toEqual([]);
  });

  /** Clicks every link of the tab's section nav: each section's top must land below the sticky nav, not under it. */
  async function jumpThroughNav(page: Page, limit = Infinity): Promise<string[]> {
    const ids = await page
      .locator('.ant-anchor-link a')
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')!.replace('#section-', '')));
    expect(ids.length).toBeGreaterThan(10);
    const covered: string[] = [];
    for (const id of [...ids.slice(1, limit), ids[0]!]) {
      await page.locator(`.ant-anchor-link a[href="#section-${id}"]`).click();
      const section = page.locator(`#section-${id}`);
      // Wait for the smooth scroll to settle: the link is active and the section has not moved for a while.
      await page.locator(`.ant-anchor-link-active > a[href="#section-${id}"]`).waitFor();
      let last = Number.NaN;
      let still = 0;
      await expect
        .poll(
          async () => {
            const y = (await section.boundingBox())!.y;
            still = y === last ? still + 1 : 0;
            last = y;
            return still >= 3;
          },
          { interval: 100 },
        )
        .toBe(true);
      const nav = (await page.locator('.ant-anchor-wrapper').boundingBox())!;
      const top = (await section.boundingBox())!.y;
      const atBottom = await page.evaluate(
        () => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2,
      );
      // Right below the nav, or lower when the page cannot scroll further (the last sections).
      if (top < nav.y + nav.height || (!atBottom && top - (nav.y + nav.height) > 40)) {
        covered.push(`${id}: section top ${top}, nav bottom ${nav.y + nav.height}`);
        await page.screenshot({ path: path.join(SCREENSHOTS, `settings-nav-miss-${id}.png`) });
      }
    }
    return covered;
  }

  it("the section nav's jump leaves each section's top in view (operation tab, desktop and phone)", async () => {
    const { page } = await open(ADMIN, 'en');
    await page.goto('/admin/settings?tab=operation');
    await page.getByTestId('settings-section-operation-general').waitFor();
    // Chat links are root's (the console fills them with the viewer's key): neither the section nor its link shows.
    expect(await page.locator('.ant-anchor-link a[href="#section-chats"]').count()).toBe(0);
    expect(await page.locator('#section-chats').count()).toBe(0);
    expect(await jumpThroughNav(page)).toEqual([]);
    await page.locator('.ant-anchor-link a[href="#section-quota"]').click();
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'settings-admin-nav-jump.png') });
    // On a phone the nav scrolls sideways; a few jumps there.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/admin/settings?tab=operation');
    await page.getByTestId('settings-section-operation-general').waitFor();
    expect(await jumpThroughNav(page, 4)).toEqual([]);
  });

  it('leaves root every tab, the system tab included', async () => {
    const { page, refused } = await open(ROOT, 'en');
    await page.goto('/admin/settings?tab=system');
    await page.getByTestId('settings-section-smtp').waitFor();
    expect(await visibleTabs(page)).toEqual([...ADMIN_TABS, 'system'].sort());
    expect(await jumpThroughNav(page, 6)).toEqual([]);
    await page.getByTestId('settings-tab-other').click();
    await page.getByTestId('settings-section-custom-code').waitFor();
    expect(await page.getByTestId('option-Footer').inputValue()).toBe('root-footer-text');
    expect(refused).toEqual([]);
  });
});
