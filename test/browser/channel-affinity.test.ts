import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { login, newestLogRow, privateConsole, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'affroot', password: 'aff-root-pass-1' };
const MODEL = 'gpt-4o-mini';
const RULE = 'openai prompt cache key';
const CALLS = 6;
/** Every answer reads 8 of its 12 prompt tokens from the provider's cache. */
const CACHED = 8;

/**
 * Channel affinity in the console: a session's calls stay on one channel; the operation settings show the pins by
 * rule and clear them; the channel table shows each channel's prompt-cache hit ratio; a call's log detail says
 * which session and rule pinned it.
 */
describe('channel affinity in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let dir: string;
  let root: Session;
  let servedBy = 0;
  beforeAll(async () => {
    mock = await startMockUpstream();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-affinity-'));
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: privateConsole(dir) });
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 1 }) });
    const ids: number[] = [];
    for (const name of ['aff-one', 'aff-two']) {
      mock.behaviors.set(`${name}-key`, { cachedTokens: CACHED });
      const created = await apiAs<{ ids: number[] }>(root, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { name, type: 1, key: `${name}-key`, base_url: mock.url, models: MODEL, group: 'default' },
      });
      ids.push(created.ids[0]!);
    }
    await apiAs(root, 'PUT', '/api/user/', { id: root.id, quota: 50_000_000 });
    const [tok] = await apiAs<{ key: string }[]>(root, 'POST', '/api/token/', { name: 'aff', unlimited_quota: true });
    for (let i = 0; i < CALLS; i++) {
      const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${tok!.key.replace(/^sk-/, '')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], prompt_cache_key: 'sess-x' }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    const keys = new Set(mock.requests.map((r) => r.key));
    expect(keys.size).toBe(1);
    servedBy = ids[['aff-one-key', 'aff-two-key'].indexOf([...keys][0]!)]!;
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the hit ratio per channel and the session in the log detail', async () => {
    const { page } = await h.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await login(page, ROOT);
    await page.goto('/admin/channels');
    const cell = page.getByTestId(`channel-cache-hit-${servedBy}`);
    await cell.waitFor();
    expect(await cell.textContent()).toBe(`${((CACHED / 12) * 100).toFixed(1)}%`);
    await expect.poll(() => page.locator('.ant-spin-spinning').count()).toBe(0);
    await h.shot(page, 'affinity-01-channels-cache-hit');

    const row = await newestLogRow(page, MODEL);
    await row.locator('.ant-table-row-expand-icon').click();
    const detail = page.locator('[data-testid^="log-affinity-"]').first();
    await detail.waitFor();
    expect(await detail.textContent()).toContain(RULE);
    expect(await detail.textContent()).toContain('sess-x');
    await h.shot(page, 'affinity-02-log-detail');
    await page.context().close();
  });

  it('lists the pins by rule in the operation settings and clears them (English)', async () => {
    const { page, context } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.setViewportSize({ width: 1440, height: 900 });
    await login(page, ROOT);
    await page.goto('/admin/settings?tab=operation');
    const card = page.getByTestId('affinity-cache');
    await card.scrollIntoViewIfNeeded();
    await expect.poll(() => card.getByTestId('affinity-total').textContent()).toBe('1');
    expect(await card.getByTestId(`affinity-rule-${RULE}`).textContent()).toBe(`${RULE}: 1`);
    await h.shot(page, 'affinity-03-settings-en');
    await card.getByTestId('affinity-clear-all').click();
    await page.locator('.ant-popconfirm .ant-btn-primary').click();
    await expect.poll(() => card.getByTestId('affinity-total').textContent()).toBe('0');
    const stats = await apiAs<{ total: number }>(root, 'GET', '/api/option/channel_affinity_cache');
    expect(stats.total).toBe(0);
    await page.context().close();
  });
});
