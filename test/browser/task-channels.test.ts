import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseOption, login, privateConsole, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'tcroot', password: 'tc-root-pass-1' };
/** Per-task prices in dollars: a drawing action, a song, a video model. */
const PRICES = { mj_imagine: 0.1, suno_music: 0.2, 'kling-v1': 0.5 };
/** A registry entry's description, long enough to be cut short in the model column. */
const DESCRIPTION =
  'Acme chat model for long documents: a 1M token context window, tool calls and JSON output, tuned for summaries';

/**
 * The task channel types in the channel editor (their hint and key format), the task models on the pricing page, and
 * a model registry entry's description, tags and vendor there.
 */
describe('task channels and task prices in Chromium', () => {
  let h: Harness;
  let page: Page;
  let root: Session;
  let dir: string;

  beforeAll(async () => {
    // A private copy of the built console: a rebuild of packages/web/dist during the run must not remove the chunks it loads.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-task-channels-'));
    h = await startHarness({ WEB_DIST: privateConsole(dir) });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(PRICES) });
    let context;
    ({ page, context } = await h.newPage());
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the editor offers Kling with its task hint and its access_key|secret_key key; the server holds the format', async () => {
    await page.goto('/admin/channels');
    await page.getByTestId('channels-add').click();
    await page.getByTestId('channel-form-type').click();
    await page.keyboard.type('Kling');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('channel-form-task-hint').textContent()).toContain('billed per task');
    expect(await page.getByTestId('channel-form-key').getAttribute('placeholder')).toContain('access_key|secret_key');
    await page.getByTestId('channel-form-name').fill('kling');
    await page.getByTestId('channel-form-key').fill('ak-browser|sk-browser');
    // "Fill related models" offers new-api's Kling models.
    await page.getByTestId('channel-form-fill-related').click();
    const chosen = () =>
      page.getByTestId('channel-form-models').locator('.ant-select-selection-item').allTextContents();
    await expect
      .poll(chosen)
      .toEqual(['kling-v1', 'kling-v1-6', 'kling-v2-master', 'kling-v2-1-master', 'kling-v2-5-turbo', 'kling-v2-6']);
    await page
      .getByTestId('channel-form')
      .screenshot({ path: path.join(SCREENSHOTS, 'task-channels-01-kling-editor.png') });
    await page.getByTestId('channel-form-submit').click();
    await page.getByTestId('channel-form').waitFor({ state: 'hidden' });
    await expect.poll(() => page.locator('[data-testid^="channel-row-"]').first().textContent()).toContain('kling');
    // A Kling key without its secret is refused.
    await expect(
      apiAs(root, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { name: 'bad', type: 50, key: 'only-access', models: 'kling-v1', group: 'default' },
      }),
    ).rejects.toThrow(/access_key\|secret_key/);
    // The Midjourney and Suno types show their own hints; a chat type none.
    await page.getByTestId('channels-add').click();
    for (const [label, hint] of [
      ['Midjourney Proxy Plus', 'mj-api-secret'],
      ['Suno API', 'suno_lyrics'],
    ]) {
      await page.getByTestId('channel-form-type').click();
      await page.keyboard.type(label);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('channel-form-task-hint').textContent()).toContain(hint);
    }
    await page.getByTestId('channel-form-type').click();
    await page.keyboard.type('DeepSeek');
    await page.keyboard.press('Enter');
    await page.getByTestId('channel-form-task-hint').waitFor({ state: 'detached' });
  });

  it('the pricing page lists the task models with their price per task', async () => {
    for (const [name, type, models] of [
      ['mj', 2, 'mj_imagine'],
      ['suno', 36, 'suno_music'],
    ] as const)
      await apiAs(root, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { name, type, key: `${name}-key`, base_url: 'http://127.0.0.1:9', models, group: 'default' },
      });
    await page.goto('/pricing');
    for (const [model, price] of Object.entries(PRICES)) {
      const cell = page.getByTestId(`pricing-price-${model}`);
      await expect.poll(() => cell.textContent()).toContain('/ task');
      expect(await cell.textContent()).toContain(String(price));
      expect(await page.getByTestId(`pricing-task-${model}`).textContent()).toBe('Task');
      expect(await page.getByTestId(`pricing-row-${model}`).textContent()).toContain('Per task');
    }
    await h.shot(page, 'task-channels-02-pricing');
  });

  it("the pricing page shows a registry entry's description and tags, and filters by the entry's vendor", async () => {
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'acme',
        type: 1,
        key: 'acme-key',
        base_url: 'http://127.0.0.1:9',
        models: 'acme-chat-1',
        group: 'default',
      },
    });
    const vendor = await apiAs<{ id: number }>(root, 'POST', '/api/vendors/', {
      name: 'Acme',
      description: 'Acme Labs',
      icon: 'Acme.Color',
    });
    await apiAs(root, 'POST', '/api/models/', {
      model_name: 'acme-chat-1',
      description: DESCRIPTION,
      tags: 'chat, long-context,',
      icon: 'https://icons.invalid/acme.svg',
      vendor_id: vendor.id,
    });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto('/pricing');
    const description = page.getByTestId('pricing-desc-acme-chat-1');
    await expect.poll(() => description.textContent()).toBe(DESCRIPTION);
    const tags = page.getByTestId('pricing-tags-acme-chat-1').locator('.ant-tag');
    expect(await tags.allTextContents()).toEqual(['chat', 'long-context']);
    // One line, cut short; the whole text on hover. The entry's icon is not rendered (no image is loaded).
    expect(await description.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await description.hover();
    await page.locator('.ant-tooltip:visible').filter({ hasText: DESCRIPTION }).waitFor();
    expect(await page.getByTestId('pricing-row-acme-chat-1').locator('img').count()).toBe(0);
    expect(requested.filter((u) => u.includes('icons.invalid'))).toEqual([]);
    // A model without an entry shows neither.
    expect(await page.getByTestId('pricing-desc-mj_imagine').count()).toBe(0);
    expect(await page.getByTestId('pricing-tags-mj_imagine').count()).toBe(0);
    await h.shot(page, 'task-channels-03-pricing-registry');

    const shown = () =>
      page.locator('[data-testid^="pricing-row-"]').evaluateAll((rows) => rows.map((r) => r.dataset.testid));
    const every = await shown();
    expect(every).toContain('pricing-row-mj_imagine');
    expect(await page.getByTestId('pricing-vendor').textContent()).toContain('All vendors');
    // Chosen as other Selects are (chooseOption, which chooses again while the select does not show it): a bare click
    // on the option was lost under a loaded CI (all nine rows stayed for ten seconds).
    await chooseOption(page, page.getByTestId('pricing-vendor'), 'Acme');
    await expect.poll(shown).toEqual(['pricing-row-acme-chat-1']);
    await h.shot(page, 'task-channels-04-pricing-vendor');
    // Clearing the vendor shows every model again; the search finds a model by its tag.
    await page.getByTestId('pricing-vendor').hover();
    await page.getByTestId('pricing-vendor').locator('.ant-select-clear').click();
    await expect.poll(shown).toEqual(every);
    await page.getByTestId('pricing-search').fill('LONG-CONTEXT');
    await expect.poll(shown).toEqual(['pricing-row-acme-chat-1']);
  });
});
