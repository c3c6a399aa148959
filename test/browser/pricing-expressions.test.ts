import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { login, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'exprroot', password: 'expr-root-pass-1' };
const MODEL = 'tiered-pro';
const EXPR = 'len <= 200000 ? tier("standard", p * 1.25 + c * 10) : tier("long_context", p * 2.5 + c * 15)';

/**
 * Billing expressions in the console (docs/using/pricing.md): the pricing page shows a model priced by one with its
 * expression; the settings' JSON pricing section saves one and shows the server's refusal of a broken one, in the
 * reader's language.
 */
describe('billing expressions in Chromium', () => {
  let h: Harness;
  let root: Session;
  let page: Page;
  const setOption = (key: string, value: unknown) =>
    apiAs(root, 'PUT', '/api/option/', { key, value: JSON.stringify(value, null, 2) });

  beforeAll(async () => {
    h = await startHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await setOption('ModelRatio', { [MODEL]: 0.625 });
    await setOption('billing_setting.billing_mode', { [MODEL]: 'tiered_expr' });
    await setOption('billing_setting.billing_expr', { [MODEL]: EXPR });
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'expr-chan',
        type: 1,
        key: 'k',
        base_url: 'http://127.0.0.1:9',
        models: MODEL,
        group: 'default',
      },
    });
    ({ page } = await h.newPage());
  });
  afterAll(async () => {
    await h?.close();
  });

  for (const lang of ['en', 'zh'] as const) {
    it(`shows the expression on the pricing page (${lang})`, async () => {
      await page.context().addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      await page.goto('/pricing');
      const cell = page.getByTestId(`pricing-expr-${MODEL}`);
      await cell.waitFor();
      expect(await cell.textContent()).toBe(EXPR);
      const row = page.getByTestId(`pricing-row-${MODEL}`);
      expect(await row.textContent()).toContain(lang === 'en' ? 'By expression' : '表达式计费');
      await h.shot(page, `pricing-expression-${lang}`);
    });
  }

  it('saves an expression from the settings and refuses a broken one under its field, naming the model and the fault', async () => {
    await page.context().addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await login(page, ROOT);
    await page.goto('/admin/settings?tab=operation');
    const section = page.getByTestId('settings-section-ratio-json');
    const field = section.getByTestId('option-billing_setting.billing_expr');
    await field.waitFor();
    expect(JSON.parse(await field.inputValue())).toEqual({ [MODEL]: EXPR });

    await field.fill(JSON.stringify({ [MODEL]: 'p * 1.25 + c * oops' }));
    await page.getByTestId('settings-save-ratio-json').click();
    // The console checks the map with the server's own rule (shared), under the field, before anything is sent.
    const error = section.locator('.ant-form-item-explain-error');
    await expect
      .poll(() => error.allTextContents())
      .toContainEqual(
        expect.stringContaining(`The billing expression of model "${MODEL}" is invalid: unknown variable oops`),
      );
    await h.shot(page, 'pricing-expression-refused');
    const saved = (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).find(
      (o) => o.key === 'billing_setting.billing_expr',
    )!;
    expect(JSON.parse(saved.value)).toEqual({ [MODEL]: EXPR });

    const cheaper = 'p * 1 + c * 8';
    await field.fill(JSON.stringify({ [MODEL]: cheaper }));
    await page.getByTestId('settings-save-ratio-json').click();
    await expect
      .poll(async () => {
        const options = await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
        return JSON.parse(options.find((o) => o.key === 'billing_setting.billing_expr')!.value)[MODEL];
      })
      .toBe(cheaper);
  });
});
