import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { login, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rcroot', password: 'rc-root-pass-1' };

/** The response cache's settings section (Settings → Operation): worded in both languages, saved as typed. */
describe('response cache settings in Chromium', () => {
  let h: Harness;
  let root: Session;

  beforeAll(async () => {
    h = await startHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
  });
  afterAll(async () => h?.close());

  for (const lang of ['zh', 'en'] as const) {
    it(`shows the section in ${lang} and saves what is typed`, async () => {
      const { page } = await h.newPage();
      await page.context().addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      await login(page, ROOT);
      await page.goto('/admin/settings?tab=operation');
      const section = page.getByTestId('settings-section-response-cache');
      await section.scrollIntoViewIfNeeded();
      const text = (await section.textContent()) ?? '';
      for (const words of lang === 'zh'
        ? ['响应缓存', '共享范围', '命中计费比例', '语义匹配']
        : ['Response cache', 'Shared within', 'Share of the price billed on a hit', 'Semantic matching'])
        expect(text, words).toContain(words);
      await page.getByTestId('option-response_cache.models').fill(`["cached-${lang}"]`);
      await page.getByTestId('option-response_cache.hit_price_share').fill('0.25');
      await page.getByTestId('settings-save-response-cache').click();
      await expect.poll(() => page.locator('.ant-message').textContent()).toBeTruthy();
      const options = await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
      const value = (k: string) => options.find((o) => o.key === k)?.value;
      expect(JSON.parse(value('response_cache.models')!)).toEqual([`cached-${lang}`]);
      expect(Number(value('response_cache.hit_price_share'))).toBe(0.25);
      await section.screenshot({ path: path.join(SCREENSHOTS, `response-cache-settings-${lang}.png`) });
    });
  }
});
