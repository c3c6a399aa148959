import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'docsroot', password: 'docs-root-pass-1' };

/** The documentation served by Tollway at /docs: the index rendered, its navigation, links between pages, anchors. */
describe('the docs at /docs in Chromium', () => {
  let h: Harness;
  let page: Page;
  beforeAll(async () => {
    h = await startPrivateHarness();
    ({ page } = await h.newPage());
  });
  afterAll(async () => h?.close());

  it('are readable before setup, while every other page still leads to /setup', async () => {
    await page.goto('/docs/install/install.md');
    await page.getByTestId('docs-content').locator('h2#runtimes').waitFor();
    expect(new URL(page.url()).pathname).toBe('/docs/install/install.md');
    await h.shot(page, 'docs-00-before-setup');
    await page.goto('/pricing');
    await page.waitForURL('**/setup');
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
  });

  it('renders docs/README.md with a side navigation made from it', async () => {
    await page.goto('/docs');
    const content = page.getByTestId('docs-content');
    await content.locator('h1', { hasText: 'Tollway documentation' }).waitFor();
    await expect.poll(() => content.locator('a').count()).toBeGreaterThan(20);
    const nav = page.getByTestId('docs-nav');
    await nav.getByText('Environment reference').first().waitFor();
    await h.shot(page, 'docs-01-index');
  });

  it('follows a link to another page inside the console, headings anchored', async () => {
    await page.getByTestId('docs-content').getByRole('link', { name: 'Installing and running Tollway' }).click();
    await page.waitForURL('**/docs/install/install.md');
    const content = page.getByTestId('docs-content');
    await content.locator('h2#runtimes').waitFor();
    // A link between pages with an anchor lands on the heading.
    await page.goto('/docs/contributing/testing.md');
    await page.getByTestId('docs-content').getByRole('link', { name: 'Architecture' }).first().click();
    await page.waitForURL('**/docs/contributing/architecture.md*');
    await page.locator('h2#one-relay-call-stage-by-stage').waitFor();
    await h.shot(page, 'docs-02-architecture');
  });

  it('the navigation opens the generated environment reference; an unknown page is not found', async () => {
    await page.getByTestId('docs-nav').getByText('Environment reference').first().click();
    await page.waitForURL('**/docs/install/environment.md');
    await page.getByTestId('docs-content').locator('td', { hasText: 'SQL_DSN' }).first().waitFor();
    await h.shot(page, 'docs-03-environment');
    await page.goto('/docs/no-such-page.md');
    await page.getByTestId('not-found').waitFor();
  });
});
