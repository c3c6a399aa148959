import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import type { Harness } from './harness.js';
import { openAs, ROOT, seedTables, seedUsers, startPrivateHarness } from './tables-fixture.js';

type State = Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>;
/** Narrow enough that the channel table scrolls sideways under its pinned action column (from 1280 px up it leaves out columns instead). */
const NARROW = { width: 900, height: 800 };

/** The alpha of a CSS colour (1 for rgb()). */
const alpha = (color: string) => {
  const m = /rgba?\(([^)]+)\)/.exec(color);
  const parts = m ? m[1]!.split(/[ ,/]+/).filter(Boolean) : [];
  return parts.length === 4 ? Number(parts[3]) : 1;
};

/** Background colour and image of the pinned action cell of the tag row `tag`. */
const actionCell = (page: Page, tag: string) =>
  page
    .getByTestId(`channel-tag-row-${tag}`)
    .locator('td')
    .last()
    .evaluate((td) => ({
      color: getComputedStyle(td).backgroundColor,
      image: getComputedStyle(td).backgroundImage,
      pinned: td.className.includes('cell-fix'),
    }));

/**
 * Issue 18, tag mode: a tag row's action cell is pinned over the scrolled columns; it has an opaque background,
 * so the group tags do not show through the buttons (light and dark).
 */
describe('tag rows in the channel table', () => {
  let h: Harness;
  let mock: MockUpstream;
  const state: State = new Map();

  beforeAll(async () => {
    h = await startPrivateHarness();
    const { root } = await seedUsers(h);
    mock = await seedTables(h, root);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`gives the tag rows' pinned action cell an opaque background (${theme})`, async () => {
      const { context, page } = await openAs(h, ROOT, 'zh', NARROW, state);
      await context.addInitScript((m) => localStorage.setItem('theme-mode', m), theme);
      await page.goto('/admin/channels');
      await page.locator('[data-testid^="channel-row-"]').first().waitFor();
      if (!(await page.getByTestId('channels-tag-mode').isChecked()))
        await page.getByTestId('channels-tag-mode').click();
      const row = page.getByTestId('channel-tag-row-team-west');
      await row.waitFor();
      // The table scrolls sideways here, so the action cell lies over other columns.
      expect(
        await page
          .locator('.ant-table-content')
          .first()
          .evaluate((el) => el.scrollWidth > el.clientWidth),
      ).toBe(true);
      const cell = await actionCell(page, 'team-west');
      expect(cell.pinned).toBe(true);
      expect(alpha(cell.color)).toBe(1);
      expect(cell.image).toContain('gradient');
      // Scrolled halfway, the group column passes under the pinned cell: still only the buttons show there.
      await page
        .locator('.ant-table-content')
        .first()
        .evaluate((el) => el.scrollBy({ left: 60 }));
      await expect.poll(() => actionCell(page, 'team-west').then((c) => alpha(c.color))).toBe(1);
      await h.shot(page, `tables-tag-mode-${theme}`);
      await context.close();
    });
  }
});
