import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, type Session } from './api-session.js';
import { chooseOption, SCREENSHOTS } from './harness.js';
import { startRootConsole, type RootConsole } from './root-console.js';

const ROOT = { username: 'routeroot', password: 'route-root-pass-1' };

/**
 * The routing strategies section of the operation settings: the default strategy and per-group / per-model rows
 * are saved as the RoutingStrategy JSON, and a repeated name is refused before anything is sent.
 */
describe('routing strategies settings in Chromium', () => {
  let c: RootConsole;
  let root: Session;
  let page: Page;

  const stored = async () =>
    (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).find(
      (o) => o.key === 'RoutingStrategy',
    )?.value;
  const choose = (select: string, option: string) => chooseOption(page, page.getByTestId(select), option);

  beforeAll(async () => {
    c = await startRootConsole('routing', ROOT);
    ({ root, page } = c);
  });
  afterAll(() => c?.close());

  it('saves the default and per-group / per-model strategies, refuses a repeated name', async () => {
    await page.goto('/admin/settings?tab=operation');
    const section = page.getByTestId('settings-section-routing');
    await section.scrollIntoViewIfNeeded();
    await expect.poll(() => section.locator('.ant-card-head-title').textContent()).toBe('Routing strategies');

    await choose('routing-default', 'Lowest latency');
    await page.getByTestId('routing-add').click();
    await page.getByTestId('routing-name-0').fill('vip');
    await choose('routing-strategy-0', 'Lowest price');
    await page.getByTestId('routing-add').click();
    await page.getByTestId('routing-name-1').fill('vip');
    await page.getByTestId('settings-save-routing').click();
    await expect.poll(() => page.getByText('Each group or model can be set once').count()).toBeGreaterThan(0);
    await section.screenshot({ path: path.join(SCREENSHOTS, 'routing-strategies-repeated.png') });
    expect(JSON.parse((await stored())!)).toEqual({ default: 'weighted', groups: {}, models: {} });

    // The second row becomes a model's entry.
    await chooseOption(page, page.getByTestId('routing-rule-1').locator('.ant-select').first(), 'Model');
    await page.getByTestId('routing-name-1').fill('gpt-4o');
    await choose('routing-strategy-1', 'Least in flight');
    await page.getByTestId('settings-save-routing').click();
    await expect
      .poll(async () => JSON.parse((await stored())!))
      .toEqual({ default: 'latency', groups: { vip: 'lowest_price' }, models: { 'gpt-4o': 'least_inflight' } });
    await section.screenshot({ path: path.join(SCREENSHOTS, 'routing-strategies-saved.png') });
  });
});
