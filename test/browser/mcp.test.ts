import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerView } from '@tollway/shared';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockMcp, type MockMcp } from '../../packages/server/test/support/mock-mcp.js';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { animationsStill, clickWhenIdle, PAGE_ACTION_TIMEOUT_MS, type Harness } from './harness.js';
import { startPrivateHarness } from './tables-fixture.js';

const ROOT = { username: 'mcproot', password: 'mcp-root-pass-1' };
const CREDENTIAL = 'Bearer browser-cred-0042';
const SERVER = 'docs';
const DESKTOP = { width: 1366, height: 860 };
const PHONE = { width: 390, height: 844 };
/** The story runs on one server in order; a loaded machine takes its time. */
const STEP_TIMEOUT_MS = 180_000;
/** A poll of something the page shows after a call: generous, the machine is shared. */
const LOADED_POLL_MS = 30_000;
const FIRST_LOAD_MS = 90_000;

/** An English page of the console at `viewport`, signed in as root. */
async function rootPage(h: Harness, viewport: { width: number; height: number }): Promise<Page> {
  const context = await h.browser.newContext({ baseURL: h.baseUrl, viewport, deviceScaleFactor: 1 });
  await context.addInitScript(() => {
    if (!localStorage.getItem('i18nextLng')) localStorage.setItem('i18nextLng', 'en');
  });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  await page.goto('/login');
  // The console's first load on a busy machine (its chunks, the status call) can take longer than one action.
  await page.getByTestId('login-username').waitFor({ timeout: FIRST_LOAD_MS });
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill(ROOT.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  return page;
}

/**
 * Issue 39 in the console: root registers a real MCP server (the official SDK's McpServer) through the MCP page's
 * form with a credential header, sees its tools and which the server's rules deny, edits it without retyping the
 * header (kept), makes tool calls through Tollway's /mcp with the SDK client and sees them in the usage panel; a
 * token's MCP deny list set in the token drawer takes the tool out of that token's tools/list. Phone layout too.
 */
describe('MCP servers in the console (Chromium)', () => {
  let h: Harness;
  let mock: MockMcp;
  let root: Session;
  let page: Page;
  let key = '';
  let tokenId = 0;
  let serverId = 0;
  const clients: McpClient[] = [];

  /** A session of the SDK client on Tollway's /mcp with the token. */
  const connect = async () => {
    const client = new McpClient({ name: 'browser-test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer sk-${key}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    mock = await startMockMcp();
    h = await startPrivateHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    for (const [k, value] of [
      ['fetch_setting.allow_private_ip', 'true'],
      ['fetch_setting.allowed_ports', JSON.stringify([String(mock.port)])],
      ['ServerAddress', h.baseUrl],
    ])
      await apiAs(root, 'PUT', '/api/option/', { key: k, value });
    const made = await apiAs<{ id: number; key: string }[]>(root, 'POST', '/api/token/', {
      name: 'agent',
      unlimited_quota: true,
    });
    key = made[0]!.key;
    tokenId = made[0]!.id;
    page = await rootPage(h, DESKTOP);
  }, STEP_TIMEOUT_MS);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await h?.close();
    await mock?.close();
  });

  it(
    'registers a server through the form, its credential sealed and masked',
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await page.goto('/admin/mcp');
      // The connect hint is built on ServerAddress.
      await expect.poll(() => page.getByTestId('mcp-connect-url').textContent()).toBe(`${h.baseUrl}/mcp`);
      await page.getByTestId('mcp-add').click();
      const drawer = page.getByTestId('mcp-drawer');
      await drawer.waitFor();
      await page.getByTestId('mcp-form-name').fill(SERVER);
      await page.getByTestId('mcp-form-url').fill(mock.url);
      await page.getByTestId('mcp-header-add').click();
      await page.getByTestId('mcp-header-name-0').fill('Authorization');
      await page.getByTestId('mcp-header-value-0').fill(CREDENTIAL);
      await page.getByTestId('mcp-form-deny_tools').fill('delete_*');
      await animationsStill(page);
      await h.shot(page, 'mcp-01-register-drawer');
      await clickWhenIdle(page.getByTestId('mcp-form-submit'));
      await drawer.waitFor({ state: 'hidden' });
      const servers = await apiAs<McpServerView[]>(root, 'GET', '/api/mcp/servers/');
      expect(servers.map((s) => [s.name, s.url, s.headers, s.deny_tools])).toEqual([
        [SERVER, mock.url, { Authorization: '***' }, 'delete_*'],
      ]);
      serverId = servers[0]!.id;
      await expect
        .poll(() => page.getByTestId(`mcp-row-${serverId}`).textContent(), { timeout: LOADED_POLL_MS })
        .toContain(SERVER);
      await h.shot(page, 'mcp-02-servers-desktop');
    },
  );

  it("shows the server's tools and which its rules deny", { timeout: STEP_TIMEOUT_MS }, async () => {
    await page.getByTestId(`mcp-tools-${serverId}`).click();
    const drawer = page.getByTestId('mcp-tools-drawer');
    await drawer.getByTestId('mcp-tool-allowed-echo').waitFor();
    expect(await drawer.getByTestId('mcp-tool-echo').textContent()).toContain('Echoes its text');
    expect(await drawer.getByTestId('mcp-tool-echo').textContent()).toContain('Read-only');
    await drawer.getByTestId('mcp-tool-denied-delete_everything').waitFor();
    expect(await drawer.locator('[data-testid^="mcp-tool-denied-"]').count()).toBe(1);
    // The upstream was reached with the registered credential.
    expect([...mock.authorizations]).toEqual([CREDENTIAL]);
    await animationsStill(page);
    await h.shot(page, 'mcp-03-tools-drawer');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    // The server answered: its breaker is closed, shown as healthy once the list is read again.
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect
      .poll(() => page.getByTestId(`mcp-health-${serverId}`).textContent(), { timeout: LOADED_POLL_MS })
      .toBe('Healthy');
  });

  it('edits the server without retyping its header: the credential is kept', { timeout: STEP_TIMEOUT_MS }, async () => {
    await page.getByTestId(`mcp-edit-${serverId}`).click();
    const drawer = page.getByTestId('mcp-drawer');
    await expect.poll(() => page.getByTestId('mcp-header-name-0').inputValue()).toBe('Authorization');
    expect(await page.getByTestId('mcp-header-value-0').getAttribute('placeholder')).toBe('***');
    // No OAuth client credentials yet: the secret box shows no stored value.
    expect(await page.getByTestId('mcp-form-oauth_client_secret').getAttribute('placeholder')).toBe('');
    await page.getByTestId('mcp-form-rate_limit').fill('120');
    await clickWhenIdle(page.getByTestId('mcp-form-submit'));
    await drawer.waitFor({ state: 'hidden' });
    await expect
      .poll(async () => (await apiAs<McpServerView>(root, 'GET', `/api/mcp/servers/${serverId}`)).rate_limit)
      .toBe(120);
    expect((await apiAs<McpServerView>(root, 'GET', `/api/mcp/servers/${serverId}`)).headers).toEqual({
      Authorization: '***',
    });
  });

  it('counts tool calls made through /mcp in the usage panel', { timeout: STEP_TIMEOUT_MS }, async () => {
    const client = await connect();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain(`${SERVER}__echo`);
    expect(names).not.toContain(`${SERVER}__delete_everything`);
    for (const text of ['one', 'two']) await client.callTool({ name: `${SERVER}__echo`, arguments: { text } });
    await client.callTool({ name: `${SERVER}__fails`, arguments: {} });
    // The calls used the stored credential, never another.
    expect([...mock.authorizations]).toEqual([CREDENTIAL]);
    const echoRow = page.getByTestId(`mcp-usage-row-${SERVER}-echo`);
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByTestId('mcp-usage').waitFor();
          return (await echoRow.count()) > 0 ? echoRow.textContent() : '';
        },
        { timeout: 120_000, interval: 1000 },
      )
      .toMatch(/^docsecho22/);
    await expect.poll(() => page.getByTestId(`mcp-usage-row-${SERVER}-fails`).textContent()).toMatch(/^docsfails10/);
    await page.getByTestId('mcp-usage-chart').locator('canvas').waitFor();
    await page.getByTestId('mcp-usage').scrollIntoViewIfNeeded();
    await h.shot(page, 'mcp-04-usage-desktop');
  });

  it(
    "a token's MCP deny list, set in the token drawer, takes the tool out of its list",
    { timeout: STEP_TIMEOUT_MS },
    async () => {
      await page.goto('/app/tokens');
      await page.getByTestId(`token-edit-${tokenId}`).click();
      const drawer = page.getByTestId('token-drawer');
      await drawer.waitFor();
      await expect.poll(() => page.getByTestId('token-form-name').inputValue()).toBe('agent');
      await page.getByTestId('token-form-mcp-deny').fill(`${SERVER}__echo`);
      await page.getByTestId('token-form-mcp-deny').scrollIntoViewIfNeeded();
      await animationsStill(page);
      await h.shot(page, 'mcp-05-token-drawer');
      await clickWhenIdle(page.getByTestId('token-form-submit'));
      await drawer.waitFor({ state: 'hidden' });
      const token = await apiAs<{ mcp_deny_tools: string }>(root, 'GET', `/api/token/${tokenId}`);
      expect(token.mcp_deny_tools).toBe(`${SERVER}__echo`);
      const names = (await (await connect()).listTools()).tools.map((t) => t.name);
      expect(names).not.toContain(`${SERVER}__echo`);
      expect(names).toContain(`${SERVER}__fails`);
    },
  );

  it('lays the page out for a phone: cards, no sideways scroll', { timeout: STEP_TIMEOUT_MS }, async () => {
    const phone = await rootPage(h, PHONE);
    await phone.goto('/admin/mcp');
    await phone.getByTestId(`mcp-row-${serverId}`).waitFor();
    await phone.getByTestId(`mcp-usage-row-${SERVER}-echo`).waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await h.shot(phone, 'mcp-06-phone');
    await phone.context().close();
  });
});
