import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import type { Session } from './api-session.js';
import { motionSettled, type Harness } from './harness.js';
import {
  openAs,
  openColumnSettings,
  ROOT,
  seedTables,
  seedUsers,
  VIEWPORTS,
  type Lang,
  startPrivateHarness,
} from './tables-fixture.js';

type State = Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>;

/** A laptop screen: the narrowest desktop the channel table is designed for. */
const LAPTOP = { width: 1280, height: 800 } as const;
/** The columns an operator works with on every visit; they show without sideways scrolling. */
const MAIN_COLUMNS = ['status', 'priority', 'weight', 'group', 'actions'];

/** How many pixels the table's scroll box scrolls sideways (0: everything fits). */
const sideScroll = (page: Page) =>
  page
    .locator('[data-testid="channels-table"] .ant-table-content')
    .first()
    .evaluate((el) => el.scrollWidth - el.clientWidth);

/** Every main column's header lies inside the table's visible box, none under another (the pinned actions). */
async function expectMainColumnsShown(page: Page) {
  const box = (await page.locator('[data-testid="channels-table"] .ant-table-content').first().boundingBox())!;
  const actions = (await page.locator('th[data-col="actions"]').first().boundingBox())!;
  for (const key of MAIN_COLUMNS) {
    const cell = (await page.locator(`th[data-col="${key}"]`).first().boundingBox())!;
    expect(cell.x, key).toBeGreaterThanOrEqual(box.x - 1);
    expect(cell.x + cell.width, key).toBeLessThanOrEqual(box.x + box.width + 1);
    if (key !== 'actions') expect(cell.x + cell.width, key).toBeLessThanOrEqual(actions.x + 1);
  }
}

/**
 * The channel table on a 1280 px laptop as well as at 1440 and 1920 px, light and dark, zh and en: the main columns
 * show without sideways scrolling, long names are cut with their full text on hover, and hidden columns stay hidden.
 */
describe('channel table at 1280, 1440 and 1920 px in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  const state: State = new Map();

  beforeAll(async () => {
    h = await startPrivateHarness();
    ({ root } = await seedUsers(h));
    mock = await seedTables(h, root);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  for (const lang of ['zh', 'en'] as Lang[]) {
    for (const theme of ['light', 'dark'] as const) {
      it(`fits 1280, 1440 and 1920 px (${lang}, ${theme})`, async () => {
        const { context, page } = await openAs(h, ROOT, lang, LAPTOP, state);
        await context.addInitScript((m) => localStorage.setItem('theme-mode', m), theme);
        await page.goto('/admin/channels');
        await page.locator('[data-testid^="channel-row-"]').first().waitFor();
        for (const viewport of [LAPTOP, VIEWPORTS.desktop, VIEWPORTS.wide]) {
          await page.setViewportSize(viewport);
          await expect.poll(() => sideScroll(page)).toBeLessThanOrEqual(0);
          await h.shot(page, `channels-${viewport.width}-${lang}-${theme}`);
          await expectMainColumnsShown(page);
          // Secondary figures left out at 1280 px are named under the table; at 1920 px every column shows.
          const folded = page.getByTestId('channels-folded');
          if (viewport.width === LAPTOP.width) expect(await folded.getAttribute('data-keys')).toMatch(/^response/);
          if (viewport.width === VIEWPORTS.wide.width) expect(await folded.count()).toBe(0);
        }
        // Bulk mode adds the selection column: still no sideways scrolling at 1280 px.
        await page.setViewportSize(LAPTOP);
        await page.getByTestId('channels-bulk-mode').click();
        await page.locator('[data-testid^="channel-row-"] .ant-checkbox').first().waitFor();
        await expect.poll(() => sideScroll(page)).toBeLessThanOrEqual(0);
        await expectMainColumnsShown(page);
        await h.shot(page, `channels-1280-bulk-${lang}-${theme}`);
        await page.getByTestId('channels-bulk-mode').click();
        await context.close();
      });
    }
  }

  it('cuts a long channel name with the full name on hover, and remembers hidden columns at 1280 px', async () => {
    const { context, page } = await openAs(h, ROOT, 'en', LAPTOP, state);
    await page.goto('/admin/channels');
    const long = page.locator('[data-testid^="channel-row-"]', { hasText: 'openai-production-mirror-2' }).first();
    await long.waitFor();
    const name = long.locator('.ant-typography-ellipsis').first();
    expect(await name.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await name.hover();
    await expect
      .poll(() => page.locator('.ant-tooltip:visible').textContent())
      .toBe('openai-production-mirror-2-with-a-long-name');
    await motionSettled(page); // a screenshot mid-animation shows half a tooltip
    await h.shot(page, 'channels-1280-name-tooltip');

    await openColumnSettings(page, 'channels-columns');
    await page.getByTestId('channels-columns-type').click();
    await expect.poll(() => page.locator('th[data-col="type"]').count()).toBe(0);
    await page.reload();
    await page.locator('[data-testid^="channel-row-"]').first().waitFor();
    expect(await page.locator('th[data-col="type"]').count()).toBe(0);
    expect(await page.locator('th[data-col="weight"]').count()).toBe(1);
    await expectMainColumnsShown(page);
    await openColumnSettings(page, 'channels-columns');
    await page.getByTestId('channels-columns-reset').click();
    await expect.poll(() => page.locator('th[data-col="type"]').count()).toBe(1);
    await context.close();
  });
});
