import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, type Session } from './api-session.js';
import { SCREENSHOTS } from './harness.js';
import { startRootConsole, type RootConsole } from './root-console.js';

const ROOT = { username: 'mcprespr', password: 'mcp-resp-root-1' };
const KEY = 'mcp_setting.responses_tools_enabled';

/**
 * The switch for the Responses API's remote MCP tools in the operation settings' MCP section: off by default,
 * turned on and saved as the option, with its help text.
 */
describe('Responses MCP tools switch in Chromium', () => {
  let c: RootConsole;
  let root: Session;
  let page: Page;

  const option = async () =>
    (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).find((o) => o.key === KEY)?.value;

  beforeAll(async () => {
    c = await startRootConsole('mcpresp', ROOT);
    ({ root, page } = c);
  });
  afterAll(() => c?.close());

  it('is off by default, and turned on it is saved', async () => {
    await page.goto('/admin/settings?tab=operation');
    const section = page.getByTestId('settings-section-mcp');
    await section.scrollIntoViewIfNeeded();
    const toggle = page.getByTestId(`option-${KEY}`);
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    expect(await section.getByText('Remote MCP tools in the Responses API').first().isVisible()).toBe(true);
    expect(await option()).toBe('false');
    await toggle.click();
    await page.getByTestId('settings-save-mcp').click();
    await expect.poll(option).toBe('true');
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await section.screenshot({ path: path.join(SCREENSHOTS, 'mcp-responses-setting-on.png') });
  });
});
