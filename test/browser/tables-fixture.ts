import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs as api, loginSession, setUpRoot, type Session } from './api-session.js';
import { PAGE_ACTION_TIMEOUT_MS, privateConsole, startHarness, submitLogin, type Harness } from './harness.js';

export const ROOT = { username: 'tblroot', password: 'tbl-root-pass-1' };
export const USER = { username: 'tbluser', password: 'tbl-user-pass-1' };
export type Lang = 'zh' | 'en';

/** The viewports the tables are designed for: a laptop, a large desktop, a phone. */
export const VIEWPORTS = {
  desktop: { width: 1440, height: 900 },
  wide: { width: 1920, height: 1080 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * The harness on a private copy of the built console (a rebuild during the run must not pull its chunks away);
 * the copy is removed with the harness.
 */
export async function startPrivateHarness(env: Record<string, string> = {}): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-tables-'));
  const h = await startHarness({ WEB_DIST: privateConsole(dir), ...env });
  const close = h.close.bind(h);
  return {
    ...h,
    close: async () => {
      await close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sets up the system with a root administrator and an ordinary user; the root's API session. */
export async function seedUsers(h: Harness): Promise<{ root: Session; user: Session }> {
  const root = await setUpRoot(h.baseUrl, ROOT);
  await api(root, 'POST', '/api/user/', { ...USER, display_name: USER.username });
  const user = await loginSession(h.baseUrl, USER);
  return { root, user };
}

/**
 * Realistic data for the channel and log tables: channels with long names, several groups and a tag, and calls
 * through a mock upstream so the logs have tokens, cost, IP and details. Returns the mock (close it after).
 */
export async function seedTables(h: Harness, root: Session): Promise<MockUpstream> {
  const mock = await startMockUpstream();
  await api(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 0.075 }) });
  await api(root, 'PUT', '/api/option/', {
    key: 'GroupRatio',
    value: JSON.stringify({ default: 1, vip: 1, 'enterprise-west': 1 }),
  });
  for (let i = 1; i <= 6; i++) {
    mock.behaviors.set(`tbl-mock-key-${i}`, { promptTokens: 123_456, completionTokens: 7_890 });
    await api(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: i === 1 ? 'tbl-mock' : `openai-production-mirror-${i}-with-a-long-name`,
        type: 1,
        key: `tbl-mock-key-${i}`,
        base_url: mock.url,
        models: 'gpt-4o-mini',
        group: i % 2 ? 'default,vip,enterprise-west' : 'default',
        tag: i > 3 ? 'team-west' : '',
        priority: i,
        weight: 10 * i,
      },
    });
  }
  await api(root, 'PUT', '/api/user/', { id: root.id, quota: 500_000_000 });
  const [tok] = await api<{ key: string }[]>(root, 'POST', '/api/token/', {
    name: 'a-token-with-a-rather-long-name',
    unlimited_quota: true,
  });
  const key = tok!.key.startsWith('sk-') ? tok!.key : `sk-${tok!.key}`;
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${h.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
    await res.text();
  }
  return mock;
}

/** How long the first load of the console may take on a loaded machine. */
const FIRST_LOAD_MS = 30_000;

/**
 * Signs in through the login form, first waiting for the form: the first load can be slow on a loaded machine. The
 * form is filled on the page that waited for it (login() would load /login a second time).
 */
export async function signIn(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').waitFor({ timeout: FIRST_LOAD_MS });
  await submitLogin(page, who);
}

/** A signed-in page of `who` in `lang` at `viewport`; the storage state of one login is reused across contexts. */
export async function openAs(
  h: Harness,
  who: { username: string; password: string },
  lang: Lang,
  viewport: { width: number; height: number },
  state: Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>,
): Promise<{ context: BrowserContext; page: Page }> {
  const browser: Browser = h.browser;
  const saved = state.get(who.username);
  const context = await browser.newContext({ baseURL: h.baseUrl, viewport, deviceScaleFactor: 1, storageState: saved });
  await context.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
  if (!saved) {
    await signIn(page, who);
    state.set(who.username, await context.storageState());
  }
  return { context, page };
}

/**
 * Opens a table's column settings and waits for what a user would see: the panel shown with its opening animation
 * finished (a click during the zoom can miss the checkbox).
 */
export async function openColumnSettings(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByTestId(`${testId}-panel`).waitFor();
  await page.waitForFunction((id) => {
    const pop = document.querySelector(`[data-testid="${id}-panel"]`)?.closest('.ant-popover');
    return (
      pop !== null &&
      pop !== undefined &&
      !/zoom|motion|hidden/.test(pop.className) &&
      pop.getAnimations({ subtree: true }).length === 0
    );
  }, testId);
}
