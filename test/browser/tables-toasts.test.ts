import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs as api, loginSession } from './api-session.js';
import { clickWhenIdle, login, type Harness } from './harness.js';
import { ROOT, USER, startPrivateHarness } from './tables-fixture.js';

/** Logins (and other critical calls) a client may make before the server answers 429. */
const CRITICAL_LIMIT = 8;
/** Wrong-password attempts sent after the first 429: each is refused again, and still one toast shows. */
const EXTRA_ATTEMPTS = 4;

/**
 * Issue 18 toasts, in Chromium: the same error repeated shows one toast, not a stack (a 429 at login); an
 * ordinary user opening an admin page sees the 403 page once and no "no permission" toasts.
 */
describe('one toast per error, and the 403 page', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPrivateHarness({ CRITICAL_RATE_LIMIT: String(CRITICAL_LIMIT) });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    const root = await loginSession(h.baseUrl, ROOT);
    await api(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
  });
  afterAll(async () => {
    await h?.close();
  });

  for (const lang of ['zh', 'en'] as const) {
    it(`shows an ordinary user the 403 page on admin URLs (home for message management), without toasts (${lang})`, async () => {
      const { context, page } = await h.newPage();
      await context.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      const refused: string[] = [];
      page.on('response', (r) => {
        if (r.url().includes('/api/') && r.status() === 403) refused.push(r.url());
      });
      await login(page, USER);
      const adminUrls = [
        '/admin/users',
        '/admin/channels',
        '/admin/coupons',
        '/admin/organizations',
        '/admin/settings',
        '/channel/edit/1',
      ];
      for (const url of adminUrls) {
        await page.goto(url);
        await page.getByTestId('forbidden').waitFor();
        expect(await page.getByTestId('forbidden').count(), url).toBe(1);
        expect(await page.getByTestId('forbidden').textContent(), url).toMatch(
          lang === 'en' ? /No permission/ : /无权访问/,
        );
      }
      // The message management page sends a non-admin home, as the spec says (no 403 page there).
      await page.goto('/admin/messages');
      await page.waitForURL((u) => u.pathname === '/');
      expect(await page.getByTestId('forbidden').count()).toBe(0);
      // Let any late answer arrive: still no toast and no refused call.
      await page.waitForLoadState('networkidle');
      expect(await page.locator('.ant-message-notice').count()).toBe(0);
      expect(refused).toEqual([]);
      await h.shot(page, `tables-403-${lang}`);
      await context.close();
    });
  }

  it('shows one toast for repeated identical errors (a 429 at login), not a stack', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('login-username').fill(USER.username);
    await page.getByTestId('login-password').fill('not-the-password');
    // Records, on every change of the toast list, the most toasts that ever showed one same text at once: a toast
    // expires after a few seconds, so a count taken once at the end could miss a stack or the toast itself.
    await page.evaluate(() => {
      const w = window as unknown as { toastPeaks: Record<string, number> };
      w.toastPeaks = {};
      new MutationObserver(() => {
        const seen: Record<string, number> = {};
        for (const n of document.querySelectorAll('.ant-message-notice')) {
          const text = n.textContent ?? '';
          seen[text] = (seen[text] ?? 0) + 1;
          w.toastPeaks[text] = Math.max(w.toastPeaks[text] ?? 0, seen[text]);
        }
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    let limited = 0;
    for (let i = 0; i < CRITICAL_LIMIT * 2 && limited <= EXTRA_ATTEMPTS; i++) {
      const answer = page.waitForResponse((r) => r.url().includes('/api/user/login'));
      await clickWhenIdle(page.getByTestId('login-submit'));
      if ((await answer).status() === 429) limited++;
    }
    expect(limited).toBeGreaterThan(EXTRA_ATTEMPTS);
    await page.locator('.ant-message-notice', { hasText: 'Too many requests' }).first().waitFor();
    const peaks = await page.evaluate(() => (window as unknown as { toastPeaks: Record<string, number> }).toastPeaks);
    // The 429 toast showed, and no text (that one or the wrong-password one) was ever on screen twice at once.
    expect(Object.entries(peaks).find(([text]) => text.includes('Too many requests'))?.[1]).toBe(1);
    expect(
      Object.values(peaks).every((n) => n === 1),
      JSON.stringify(peaks),
    ).toBe(true);
    await h.shot(page, 'tables-toast-429');
    await context.close();
  });
});
