import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { MockSmtp } from '../../packages/server/test/support/mock-smtp.js';
import { freePort, runServer, waitForStart, type ServerProcess } from '../../packages/server/test/support/process.js';

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * How long a page action (click, fill, screenshot, wait) may take. CI runs browsers beside the other tiers on two
 * cores; on a slow day a busy renderer took over 15 s to perform a click.
 */
export const PAGE_ACTION_TIMEOUT_MS = 30_000;
/** How long the server may take to start: 34–46 s were seen beside four other people's runs (load average 30–40). */
const SERVER_START_TIMEOUT_MS = 60_000;

/**
 * Headless Chromium (156) preloads the address bar's WebUI popups (chrome://omnibox-popup.top-chrome) in a renderer
 * of their own for every window, and every browser context is a window: 13-16 s of that renderer's CPU for ten
 * contexts opening the login page (about 1.4 s each), for popups no test opens. settings-admin (5 contexts): 90-101 s
 * of CPU for the file with them, 80-82 s without.
 */
const OMNIBOX_POPUP_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

/**
 * The --disable-features switch for Chromium: Playwright's own list with the omnibox popups added. Chromium keeps
 * only the last --disable-features it is given, so a second switch would drop Playwright's list (PaintHolding,
 * HttpsUpgrades and the rest); Playwright exports no such list, so it is read from its bundle. Should a Playwright
 * version lay it out otherwise, Playwright's switch stays alone and the run is only slower, with a warning.
 */
function disableFeaturesSwitch(): string[] {
  const bundle = fs.readFileSync(createRequire(import.meta.url).resolve('playwright-core/lib/coreBundle'), 'utf8');
  const list = /\bdisabledFeatures = \[([^\]]*)\]/.exec(bundle)?.[1];
  const own = [...(list ?? '').matchAll(/^\s*"(\w+)",?$/gm)].map((m) => m[1]!);
  if (own.length === 0) {
    console.warn("harness: Playwright's disabled Chromium features not found; the omnibox popups stay preloaded");
    return [];
  }
  return [`--disable-features=${[...own, ...OMNIBOX_POPUP_FEATURES].join(',')}`];
}

export interface Harness {
  baseUrl: string;
  server: ServerProcess;
  browser: Browser;
  newPage(opts?: { mobile?: boolean }): Promise<{ context: BrowserContext; page: Page }>;
  shot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A private copy of the built console under `dir`, for WEB_DIST: a rebuild of packages/web/dist during the run must
 * not remove the chunks the page loads.
 */
export function privateConsole(dir: string): string {
  const web = path.join(dir, 'web');
  fs.cpSync(path.resolve(import.meta.dirname, '../../packages/web/dist'), web, { recursive: true });
  return web;
}

/** The real server (fresh SQLite, built console) and a headless Chromium. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-browser-'));
  const port = await freePort();
  const server = runServer({
    SQLITE_PATH: path.join(dir, 'tollway.db'),
    PORT: String(port),
    SESSION_SECRET: 'browser-test-secret-0123456789abcdef',
    ...env,
  });
  // A server that did not start in time is stopped, not left running after the failed file.
  await waitForStart(server, SERVER_START_TIMEOUT_MS).catch(async (err: unknown) => {
    server.child.kill('SIGKILL');
    await server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...disableFeaturesSwitch(),
    ],
  });
  return {
    baseUrl,
    server,
    browser,
    async newPage(opts = {}) {
      const context = await browser.newContext({
        baseURL: baseUrl,
        viewport: opts.mobile ? { width: 390, height: 844 } : { width: 1366, height: 860 },
        deviceScaleFactor: 1,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(PAGE_ACTION_TIMEOUT_MS);
      return { context, page };
    },
    async shot(page, name) {
      await page.waitForLoadState('networkidle').catch(() => undefined);
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await browser.close();
      server.child.kill('SIGTERM');
      await server.exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Logs in through the login form and waits until the app has left /login. */
export async function login(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await submitLogin(page, who);
}

/** Fills and submits the login form of a page already on /login; waits until the app has left /login. */
export async function submitLogin(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

/**
 * Clicks an antd button once it has left its loading state: a loading button swallows clicks (no submit) yet has
 * no `disabled` attribute, so Playwright's own actionability check would click it too early.
 */
export async function clickWhenIdle(button: Locator): Promise<void> {
  await expect.poll(() => button.getAttribute('class')).not.toMatch(/ant-btn-loading/);
  await button.click();
}

/**
 * Waits until no antd motion (a dialog's zoom, a mask's fade, a popover's slide) is entering, appearing or leaving.
 * Click inside a dialog only once it has opened: its zoom holds still for a frame or two before it starts, long
 * enough for Playwright to find a button stable; the zoom then moves the button between the press and the release,
 * the click lands on the dialog's wrapper and nothing happens.
 */
export async function motionSettled(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(() => document.querySelectorAll('[class*="-enter"], [class*="-appear"], [class*="-leave"]').length),
    )
    .toBe(0);
}

/** Waits until no animation runs (endless ones aside: a spinner), for a picture of the settled page. */
export async function animationsStill(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
  );
}

/**
 * Fills `input` until it holds `text`. A drawer still opening moves the focus into its panel (antd's focus trap, when
 * its animation ends): on a loaded machine that landed inside a fill once and the typed username was lost.
 */
export async function fillSettled(input: Locator, text: string): Promise<void> {
  await expect
    .poll(async () => {
      await input.fill(text);
      return input.inputValue();
    })
    .toBe(text);
}

/**
 * Picks the option showing `text` in the antd Select `select` (single choice), and waits until the select shows it.
 * A dropdown still closing from an earlier choice is visible for a moment and would take the click (its option of
 * the same text does nothing then): wait until none is open, and choose again while the select does not show it.
 * The last attempt's failure to click is the error thrown, so a missing option still names itself.
 */
export async function chooseOption(page: Page, select: Locator, text: string | RegExp): Promise<void> {
  const shows = async () => {
    const t = (await select.textContent()) ?? '';
    return typeof text === 'string' ? t.includes(text) : text.test(t);
  };
  const open = page.locator('.ant-select-dropdown:visible');
  for (let attempt = 0; attempt < CHOOSE_ATTEMPTS; attempt++) {
    // A dropdown left open elsewhere on the page must not stop the choice: wait a moment, then choose and check.
    await open
      .first()
      .waitFor({ state: 'hidden', timeout: CHOOSE_SETTLE_MS })
      .catch(() => undefined);
    await select.click();
    // A dropdown that closes while the click waits for its option (a re-render of the form, a scroll) would hold
    // the click for the whole test timeout: the click is bounded and the choice tried again.
    const last = attempt === CHOOSE_ATTEMPTS - 1;
    const option = open.locator('.ant-select-item-option').filter({ hasText: text }).first();
    if (last) await option.click({ timeout: CHOOSE_SETTLE_MS });
    else await option.click({ timeout: CHOOSE_SETTLE_MS }).catch(() => undefined);
    const chosen = await expect
      .poll(shows, { timeout: CHOOSE_SETTLE_MS })
      .toBe(true)
      .then(
        () => true,
        () => false,
      );
    if (chosen) return;
  }
  throw new Error(`the select did not take the option ${String(text)}`);
}
const CHOOSE_ATTEMPTS = 3;
const CHOOSE_SETTLE_MS = 5_000;

/**
 * Opens the antd Dropdown menu of `trigger`, clicks its item `item` and waits for `then` (what the item opens) to
 * be visible. An item clicked while its menu is still opening, or already closing after a re-render of the page
 * (the list refreshing behind it), can take the click and do nothing, as a closing Select's option does
 * (chooseOption): then the menu is opened and the item clicked again, at most CHOOSE_ATTEMPTS times. Nothing is
 * clicked again once `then` shows; the last attempt's error is thrown.
 */
export async function chooseMenuItem(trigger: Locator, item: Locator, then: Locator): Promise<void> {
  for (let attempt = 0; attempt < CHOOSE_ATTEMPTS; attempt++) {
    if (await then.isVisible()) return;
    const last = attempt === CHOOSE_ATTEMPTS - 1;
    try {
      if (!(await item.isVisible())) await trigger.click({ timeout: CHOOSE_SETTLE_MS });
      await item.click({ timeout: CHOOSE_SETTLE_MS });
      await then.waitFor({ timeout: CHOOSE_SETTLE_MS });
      return;
    } catch (err) {
      if (last) throw err;
    }
  }
}

/**
 * Drops the page's session without the console noticing: it leaves the console first, since a console page still
 * open would meet a 401 and redirect to /login?expired=true, racing the test's next navigation.
 */
export async function dropSession(page: Page): Promise<void> {
  await page.evaluate(() => localStorage.clear());
  await page.goto('about:blank');
  await page.context().clearCookies();
}

/**
 * Logs out through the avatar menu and waits for /login. The menu animates open; under load a click can land
 * before it settles, so it is opened and clicked until the app has logged out.
 */
export async function logout(page: Page): Promise<void> {
  await expect
    .poll(
      async () => {
        if (new URL(page.url()).pathname.startsWith('/login')) return true;
        if (!(await page.getByTestId('logout').isVisible())) await page.getByTestId('user-menu').click();
        await page
          .getByTestId('logout')
          .click({ timeout: 3000 })
          .catch(() => undefined);
        await page.waitForURL((u) => u.pathname.startsWith('/login'), { timeout: 3000 }).catch(() => undefined);
        return new URL(page.url()).pathname.startsWith('/login');
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(true);
}

/** A management API call from the page, as the logged-in console user (session cookie and New-Api-User). */
export async function pageApi<T = unknown>(
  page: Page,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ success: boolean; message: string; data?: T }> {
  return page.evaluate(
    async ([m, u, b]) => {
      const user = JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number };
      const r = await fetch(u as string, {
        method: m as string,
        headers: { 'content-type': 'application/json', 'New-Api-User': String(user.id ?? '') },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return r.json();
    },
    [method, url, body] as const,
  );
}

/** Saves settings as the page's logged-in administrator (PUT /api/option/), failing on the first one refused. */
export async function setOptions(page: Page, entries: [string, string][]): Promise<void> {
  for (const [key, value] of entries)
    expect((await pageApi(page, 'PUT', '/api/option/', { key, value })).success, key).toBe(true);
}

/** The settings that send the console's mail to the test SMTP server, with e-mail verification on. */
export const smtpOptions = (smtp: MockSmtp): [string, string][] => [
  ['SMTPServer', smtp.host],
  ['SMTPPort', String(smtp.port)],
  ['SMTPAccount', smtp.user],
  ['SMTPToken', smtp.pass],
  ['SMTPFrom', 'gateway@example.test'],
  ['EmailVerificationEnabled', 'true'],
];

/** Opens the usage logs and waits (searching again) until the newest row is a call of `model`; that row. */
export async function newestLogRow(page: Page, model: string): Promise<Locator> {
  await page.goto('/app/logs/api-usage');
  const row = page.locator('[data-testid^="log-row-"]').first();
  await expect
    .poll(
      async () => {
        await page.getByTestId('logs-search').click();
        return (await row.count()) > 0 ? row.textContent() : '';
      },
      { timeout: 15_000 },
    )
    .toContain(model);
  return row;
}
