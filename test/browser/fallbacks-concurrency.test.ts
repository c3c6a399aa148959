import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { login, newestLogRow, pageApi, privateConsole, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'fbroot', password: 'fb-root-pass-1' };
const PRIMARY = 'fb-browser-primary';
const BACKUP = 'fb-browser-backup';
const FALLBACKS = `{"${PRIMARY}": ["${BACKUP}"]}`;

/**
 * The concurrency and model fallback settings saved in the console reach the relay, and a call served by a
 * fallback model shows in its log details which model was asked for and why it moved.
 */
describe('concurrency limits and model fallbacks in the console (Chromium)', () => {
  let h: Harness;
  let page: Page;
  let mock: MockUpstream;
  let dir: string;
  let root: Session;
  beforeAll(async () => {
    mock = await startMockUpstream();
    mock.behaviors.set('fb-down-key', { failStatus: 503 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-fallbacks-'));
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: privateConsole(dir) });
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ [PRIMARY]: 1, [BACKUP]: 2 }),
    });
    for (const [name, key, model] of [
      ['fb-down', 'fb-down-key', PRIMARY],
      ['fb-up', 'fb-up-key', BACKUP],
    ])
      await apiAs(root, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { name, type: 1, key, base_url: mock.url, models: model, group: 'default' },
      });
    ({ page } = await h.newPage());
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const option = async (key: string) =>
    (await pageApi<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data?.find((o) => o.key === key)
      ?.value;

  it('saves the concurrency limits and the fallback list on the operation settings page', async () => {
    await page.goto('/admin/settings?tab=operation');
    const perToken = page.getByTestId('option-TokenConcurrencyLimit');
    await perToken.waitFor();
    await perToken.fill('5');
    await page.getByTestId('option-UserConcurrencyLimit').fill('8');
    await page.getByTestId('settings-save-concurrency').click();
    await expect.poll(() => option('TokenConcurrencyLimit')).toBe('5');
    expect(await option('UserConcurrencyLimit')).toBe('8');
    const fallbacks = page.getByTestId('option-ModelFallbacks');
    await fallbacks.fill(FALLBACKS);
    await fallbacks.blur();
    await page.getByTestId('option-ModelFallbacks').scrollIntoViewIfNeeded();
    await h.shot(page, 'fallbacks-concurrency-01-settings');
    await page.getByTestId('settings-save-model-fallbacks').click();
    await expect.poll(() => option('ModelFallbacks')).toBe(FALLBACKS);
  });

  it("saves a token's own concurrency limit in the token editor", async () => {
    const [made] = await apiAs<{ id: number }[]>(root, 'POST', '/api/token/', {
      name: 'fb-own',
      unlimited_quota: true,
    });
    const id = made!.id;
    await page.goto('/app/tokens');
    await page.getByTestId(`token-edit-${id}`).click();
    const field = page.getByTestId('token-form-concurrency');
    await expect.poll(() => field.inputValue()).toBe('0');
    await field.fill('3');
    await h.shot(page, 'fallbacks-concurrency-03-token-editor');
    await page.getByTestId('token-form-submit').click();
    await expect
      .poll(
        async () =>
          (await pageApi<{ concurrency_limit: number }>(page, 'GET', `/api/token/${id}`)).data?.concurrency_limit,
      )
      .toBe(3);
    // Opened again, the editor shows what was saved.
    await page.getByTestId(`token-edit-${id}`).click();
    await expect.poll(() => page.getByTestId('token-form-concurrency').inputValue()).toBe('3');
    await page.keyboard.press('Escape');
  });

  it('a call moved to its fallback model shows the model asked for and the reason in the log details', async () => {
    const [token] = await apiAs<{ key: string }[]>(root, 'POST', '/api/token/', { name: 'fb', unlimited_quota: true });
    const key = token!.key.startsWith('sk-') ? token!.key : `sk-${token!.key}`;
    const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: PRIMARY, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const row = await newestLogRow(page, BACKUP);
    await row.locator('.ant-table-row-expand-icon').click();
    const detail = page.locator('[data-testid^="log-detail-"]').first();
    await detail.waitFor();
    // The console's default language here is Chinese.
    await expect.poll(() => detail.textContent()).toContain(`由 ${PRIMARY} 降级：上游服务错误（5xx）`);
    await h.shot(page, 'fallbacks-concurrency-02-log-detail');
  });
});
