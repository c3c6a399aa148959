import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateConsole, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };

/** Issue 18's goal for the login page: bytes on the wire (compressed, headers included); asserted as is. */
const LOGIN_GOAL_BYTES = 350 * 1000;
/** A response this small may be sent as is (the build keeps no compressed copy below 256 bytes of source). */
const SMALL_RESPONSE_BYTES = 1500;
/** Issue 18's network: 1.6 Mbps down, in bytes per second. */
const THROTTLED_BYTES_PER_SECOND = 1_600_000 / 8;
/** Round trip added to every request on the throttled network. */
const THROTTLED_LATENCY_MS = 40;
/** Issue 18's goal for the throttled first content (about 0.3 s measured: the app shell of index.html). */
const FIRST_CONTENT_GOAL_MS = 1500;
/** The goal with a little room for a loaded machine (timings, not bytes). */
const FIRST_CONTENT_CEILING_MS = 1800;
/** Regression guard on the throttled login form (2.4-2.7 s measured; 3.3-5.6 s before the entry was trimmed). */
const LOGIN_FORM_CEILING_MS = 5000;
const THROTTLED_RUNS = 5;

interface Transfer {
  url: string;
  bytes: number;
  encoding: string;
}

/** Every response of the page with its encoded length on the wire, from the Chrome DevTools Protocol. */
async function recordTransfers(page: Page): Promise<{ cdp: CDPSession; transfers: Transfer[] }> {
  const cdp = await page.context().newCDPSession(page);
  const pending = new Map<string, { url: string; encoding: string }>();
  const transfers: Transfer[] = [];
  cdp.on('Network.responseReceived', (e) => {
    const headers = Object.fromEntries(
      Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    pending.set(e.requestId, { url: e.response.url, encoding: headers['content-encoding'] ?? 'identity' });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = pending.get(e.requestId);
    if (r) transfers.push({ ...r, bytes: e.encodedDataLength });
  });
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  return { cdp, transfers };
}

/** Loads /login in a fresh page and waits until the form is on screen and the network is idle. */
async function loadLogin(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').waitFor();
  await page.waitForLoadState('networkidle');
}

/** Marks the moment the login form's first field enters the page (the test's own script, outside the console). */
async function watchLoginForm(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen = () => {
      if (!document.querySelector('[data-testid="login-username"]')) return false;
      performance.mark('login-form-visible');
      return true;
    };
    const observer = new MutationObserver(() => seen() && observer.disconnect());
    observer.observe(document, { childList: true, subtree: true });
  });
}

/** First contentful paint and the moment the login form was in the page, both from navigation start. */
async function paintTimes(page: Page): Promise<{ fcp: number; form: number }> {
  return page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN;
    const form = performance.getEntriesByName('login-form-visible')[0]?.startTime ?? Number.NaN;
    return { fcp, form };
  });
}

/** Issue 18 "Load fast": the login page's transferred bytes from the real server, and its first content on a slow link. */
describe('login page load', () => {
  let h: Harness;
  beforeAll(async () => {
    const web = privateConsole(fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-load-')));
    h = await startHarness({ WEB_DIST: web });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
  });
  afterAll(async () => h?.close());

  it(`transfers at most ${LOGIN_GOAL_BYTES / 1000} KB, compressed (issue 18's goal)`, async () => {
    const { context, page } = await h.newPage();
    const { transfers } = await recordTransfers(page);
    await loadLogin(page);
    const total = transfers.reduce((n, t) => n + t.bytes, 0);
    const js = transfers.filter((t) => t.url.endsWith('.js')).reduce((n, t) => n + t.bytes, 0);
    console.log(
      `login page: ${transfers.length} responses, ${total} bytes transferred (${js} of JavaScript); goal ${LOGIN_GOAL_BYTES}: ${total <= LOGIN_GOAL_BYTES ? 'met' : 'not met'}`,
    );
    for (const t of [...transfers].sort((a, b) => b.bytes - a.bytes))
      console.log(`  ${t.bytes}\t${t.encoding}\t${new URL(t.url).pathname}`);
    const assets = transfers.filter(
      (t) =>
        new URL(t.url).pathname.startsWith('/assets/') && /\.(js|css)$/.test(t.url) && t.bytes > SMALL_RESPONSE_BYTES,
    );
    expect(assets.length).toBeGreaterThan(0);
    expect(assets.filter((t) => t.encoding !== 'br').map((t) => t.url)).toEqual([]);
    expect(total).toBeLessThanOrEqual(LOGIN_GOAL_BYTES);
    await context.close();
  });

  it('shows the login page translated in Chinese (default) and English, never a raw key', async () => {
    for (const lang of ['zh', 'en'] as const) {
      const { context, page } = await h.newPage();
      await context.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      await loadLogin(page);
      const text = await page.locator('body').innerText();
      expect(text).not.toMatch(/\b(auth|common|shell)[.:][a-zA-Z]+/);
      expect(text).toMatch(lang === 'zh' ? /登录/ : /Sign in|Log in|Login/i);
      await h.shot(page, `load-login-${lang}`);
      await context.close();
    }
  });

  it('paints the app shell before any script runs: the cached brand and, on /login, the card frame; React replaces it', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('status', JSON.stringify({ system_name: 'Shell "Gate"' })));
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.goto('/login');
    const shell = page.locator('.tw-boot');
    await expect.poll(() => shell.isVisible()).toBe(true);
    const name = await page.locator('.tw-boot-name').evaluate((el) => getComputedStyle(el, '::before').content);
    expect(name).toBe('"Shell \\"Gate\\""');
    expect(await page.locator('.tw-boot-card').isVisible()).toBe(true);
    expect((await page.locator('body').innerText()).trim()).toBe('');
    await h.shot(page, 'load-login-shell');
    await page.unroute(/\/assets\/.*\.js$/);
    await page.goto('/about');
    await page.getByTestId('top-bar').waitFor();
    expect(await page.locator('.tw-boot').count()).toBe(0);
    await context.close();
  });

  it(`measures first content and the login form at ${THROTTLED_BYTES_PER_SECOND * 8} bit/s (goal ${FIRST_CONTENT_GOAL_MS} ms)`, async () => {
    const runs: { fcp: number; form: number }[] = [];
    for (let i = 0; i < THROTTLED_RUNS; i++) {
      const { context, page } = await h.newPage();
      await watchLoginForm(page);
      const { cdp } = await recordTransfers(page);
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: THROTTLED_LATENCY_MS,
        downloadThroughput: THROTTLED_BYTES_PER_SECOND,
        uploadThroughput: THROTTLED_BYTES_PER_SECOND,
      });
      await loadLogin(page);
      runs.push(await paintTimes(page));
      await context.close();
    }
    const line = (k: 'fcp' | 'form') => runs.map((r) => Math.round(r[k])).join(', ');
    console.log(
      `throttled ${THROTTLED_BYTES_PER_SECOND * 8} bit/s, ${THROTTLED_LATENCY_MS} ms RTT: first content ${line('fcp')} ms; login form visible ${line('form')} ms`,
    );
    console.log(
      `first content goal ${FIRST_CONTENT_GOAL_MS} ms: ${runs.every((r) => r.fcp <= FIRST_CONTENT_GOAL_MS) ? 'met' : 'not met'} in ${THROTTLED_RUNS} runs`,
    );
    for (const r of runs) {
      expect(Number.isFinite(r.fcp) && Number.isFinite(r.form)).toBe(true);
      expect(r.form).toBeGreaterThanOrEqual(r.fcp);
      expect(r.fcp).toBeLessThanOrEqual(FIRST_CONTENT_CEILING_MS);
      expect(r.form).toBeLessThanOrEqual(LOGIN_FORM_CEILING_MS);
    }
  });
});
