import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const ADMIN = { username: 'mallory', password: 'mallory-pass-123' };

/**
 * What the payloads would do if any of them ran: a root-only write (the attack of the report) and a marker.
 * Each sets window.__pwned to its own number so a failure names the payload that ran.
 */
const attack = (n: number) =>
  `window.__pwned=${n};fetch('/api/option/',{method:'PUT',headers:{'content-type':'application/json','New-Api-User':String(JSON.parse(localStorage.getItem('user')).id)},body:JSON.stringify({key:'SystemName',value:'pwned-${n}'})})`;

const HTML_PAYLOAD = [
  '<p>Quarterly notice</p>',
  `<img src=x onerror="${attack(1)}">`,
  `<svg onload="${attack(2)}"><circle r="5"></circle></svg>`,
  `<iframe srcdoc="<script>parent.${attack(3).replace(/"/g, '&quot;')}</script>"></iframe>`,
  '<a href="data:text/html,<script>alert(document.domain)</script>" data-testid="x-data-link">data link</a>',
  `<a href="javascript:${attack(4)}" data-testid="x-js-link">js link</a>`,
  `<a href="&#1;javascript:${attack(5)}">control-char link</a>`,
  `<details open ontoggle="${attack(6)}"><summary>details</summary>x</details>`,
  `<script>${attack(7)}</script>`,
  '<form action="/api/option/" method="post"><button>save</button></form>',
  '<a href="https://example.com/docs">safe link</a>',
  // Same-site, so no cross-site check stops it: the server refuses a logout the browser loads as an image.
  '<img src="/api/user/logout" alt="logout pixel">',
].join('\n');

const MARKDOWN_PAYLOAD = [
  `<img src=x onerror="${attack(11)}">`,
  '',
  `<svg onload="${attack(12)}">`,
  '',
  `[js link](javascript:${attack(13).replace(/[()]/g, '')})`,
  '',
  `[ctrl link](\u0001javascript:window.__pwned=14)`,
  '',
  '[data link](data:text/html,<script>alert(1)</script>)',
  '',
  '![img](javascript:window.__pwned=15)',
  '',
  '**bold** and [safe link](https://example.com/docs)',
].join('\n');

const SETTINGS_PAYLOADS: [string, string][] = [
  [
    'Notice',
    `<img src=x onerror="${attack(21)}">\n\nNotice [js](javascript:window.__pwned=22) [ctrl](\u0001javascript:window.__pwned=23)`,
  ],
  [
    'HomePageContent',
    `<h2>Welcome</h2><img src=x onerror="${attack(24)}"><svg onload="${attack(25)}"></svg><a href="data:text/html,x">data</a><iframe srcdoc="<b>x</b>"></iframe>`,
  ],
  [
    'About',
    `<h2>About us</h2><a href="\u0001javascript:${attack(26)}">about link</a><img src=x onerror="${attack(27)}">`,
  ],
  [
    'Footer',
    `<span>Footer text</span><img src=x onerror="${attack(28)}"><a href=" javascript:window.__pwned=29">footer link</a>`,
  ],
];

/** Everything a page did that the test forbids, gathered from the moment it opened. */
interface Watch {
  dialogs: string[];
  optionWrites: string[];
  cspErrors: string[];
  navigations: { url: string; csp: string | undefined }[];
}

/**
 * Watches a page: dialogs, PUTs to the options API, console errors about the CSP, each document's CSP header,
 * and (through a script the browser runs before the page's own) every securitypolicyviolation event.
 */
async function watch(page: Page): Promise<Watch> {
  await page.addInitScript(() => {
    const list: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = list;
    document.addEventListener('securitypolicyviolation', (e) => list.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const w: Watch = { dialogs: [], optionWrites: [], cspErrors: [], navigations: [] };
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r: Request) => {
    if (r.method() === 'PUT' && new URL(r.url()).pathname.startsWith('/api/option')) w.optionWrites.push(r.url());
  });
  page.on('console', (m) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(m.text())) w.cspErrors.push(m.text());
  });
  page.on('response', (r: Response) => {
    if (r.request().isNavigationRequest() && r.request().frame() === page.mainFrame())
      w.navigations.push({ url: r.url(), csp: r.headers()['content-security-policy'] });
  });
  return w;
}

/**
 * Chromium reports an inline event handler to the CSP as soon as any HTML parser meets one, even in the inert
 * document the sanitizer parses into (the handler is then removed and never runs). On pages that show hostile
 * content those refusals are the only violations allowed; everywhere else there must be none at all.
 */
const HANDLER_REFUSED = 'script-src-attr inline';
const HANDLER_REFUSED_LOG =
  /^Executing inline event handler violates the following Content Security Policy directive 'script-src 'self''/;

async function expectNothingRan(page: Page, w: Watch, root: Session, opts: { hostile: boolean }): Promise<void> {
  // Give any handler (onerror of a failed image, a toggle event) time to fire.
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  const violations = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
  expect(violations.filter((v) => !(opts.hostile && v === HANDLER_REFUSED))).toEqual([]);
  expect(w.cspErrors.filter((e) => !(opts.hostile && HANDLER_REFUSED_LOG.test(e)))).toEqual([]);
  expect(w.dialogs).toEqual([]);
  expect(w.optionWrites).toEqual([]);
  const status = await apiAs<{ system_name: string }>(root, 'GET', '/api/status');
  expect(status.system_name).toBe('Tollway');
  expect(w.navigations.length).toBeGreaterThan(0);
  for (const nav of w.navigations) {
    const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(nav.csp ?? '')?.[1];
    expect(scriptSrc, nav.url).toBe("'self'");
    expect(nav.csp, nav.url).toContain("frame-ancestors 'none'");
    expect(nav.csp, nav.url).toContain("object-src 'none'");
  }
}

/** The page that shows the administrator's messages (their refused handlers report to the console). */
const HOSTILE_PAGE = '/app/inbox';

/** Example values for the router's path parameters. */
const PATH_PARAMS: Record<string, string> = { id: '1', provider: 'github' };

/** Every page of the console's router (packages/web/src/app/router.tsx), parameters filled in, catch-all left out. */
function consolePaths(): string[] {
  const source = fs.readFileSync(path.join(process.cwd(), 'packages/web/src/app/router.tsx'), 'utf8');
  const paths = [...source.matchAll(/\bpath: '([^']+)'/g)].map((m) => m[1]!).filter((p) => p !== '*');
  return [
    ...new Set(
      paths.map(
        (p) => p.replace(/\/:(\w+)\?/g, '').replace(/:(\w+)/g, (_, name: string) => PATH_PARAMS[name] ?? '1') || '/',
      ),
    ),
  ];
}

/** The page's own session (not the test's API session) still answers /api/user/self. */
async function pageSessionAlive(page: Page, userId: number): Promise<boolean> {
  return page.evaluate(async (id) => {
    const res = await fetch('/api/user/self', { headers: { 'New-Api-User': String(id) } });
    return res.ok && ((await res.json()) as { success: boolean }).success;
  }, userId);
}

/** The rendered content holds no active element and no link to a script or data address. */
async function expectInertContent(page: Page, testId: string): Promise<void> {
  const found = await page.getByTestId(testId).evaluate((el) => ({
    active: el.querySelectorAll('script,iframe,svg,object,embed,form,[onerror],[onload],[ontoggle],[style]').length,
    hrefs: Array.from(el.querySelectorAll('a')).map((a) => a.getAttribute('href')),
    srcs: Array.from(el.querySelectorAll('img')).map((i) => i.getAttribute('src')),
  }));
  expect(found.active).toBe(0);
  for (const href of found.hrefs) if (href !== null) expect(href).toMatch(/^(https?:|mailto:|\/)/);
  for (const src of found.srcs) if (src !== null) expect(src).not.toMatch(/^\s*(javascript|data):/i);
}

/** Stored script payloads from an administrator, opened by root, run nothing and change nothing. */
describe('stored XSS: an administrator’s content in root’s browser', () => {
  let h: Harness;
  let page: Page;
  let w: Watch;
  let root: Session;
  let admin: Session;
  const ids: { html: number; markdown: number } = { html: 0, markdown: 0 };

  beforeAll(async () => {
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Mallory', role: 10 });
    admin = await loginSession(h.baseUrl, ADMIN);
    ids.html = (
      await apiAs<{ id: number }>(admin, 'POST', '/api/admin/messages', {
        title: 'HTML payloads',
        content: HTML_PAYLOAD,
        format: 'html',
        user_ids: [root.id],
      })
    ).id;
    ids.markdown = (
      await apiAs<{ id: number }>(admin, 'POST', '/api/admin/messages', {
        title: 'Markdown payloads',
        content: MARKDOWN_PAYLOAD,
        format: 'markdown',
        user_ids: [root.id],
      })
    ).id;
    ({ page } = await h.newPage());
    w = await watch(page);
  });
  afterAll(async () => h?.close());

  it('before any hostile content is shown, the console works under the policy: every page loads with its CSP header and no violation at all', async () => {
    await login(page, ROOT);
    // The inbox lists (and may open) the hostile messages: the next test reads it, allowing the refused handlers.
    const pages = consolePaths().filter((p) => p !== HOSTILE_PAGE);
    expect(pages.length).toBeGreaterThan(25);
    for (const url of pages) {
      const before = w.navigations.length;
      await page.goto(url);
      await page.waitForLoadState('networkidle');
      expect(w.navigations.length, url).toBeGreaterThan(before);
      expect(
        await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
        url,
      ).toEqual([]);
    }
    await page.goto('/app/dashboard');
    // (ECharts drawing under this policy is shown by dashboard.test.ts, which has calls to chart.)
    await page.getByTestId('dashboard-total-calls').waitFor();
    await h.shot(page, 'xss-00-dashboard-under-csp');
    await expectNothingRan(page, w, root, { hostile: false });
  });

  it('root reads both messages in the inbox: they render as text and safe links, nothing runs', async () => {
    await page.goto('/app/inbox');
    await page.getByTestId('inbox-list').locator('.tw-inbox-item').nth(1).waitFor();
    expect(await page.getByTestId('inbox-list').locator('.tw-inbox-item').count()).toBe(2);
    await h.shot(page, 'xss-01-inbox-list');
    await expectNothingRan(page, w, root, { hostile: true });

    await page.goto(`/app/inbox/${ids.html}`);
    await page.getByTestId('message-content').getByText('Quarterly notice').waitFor();
    await expectInertContent(page, 'message-content');
    // The links lost their script and data addresses; a click goes nowhere.
    expect(await page.getByTestId('message-content').getByText('js link').getAttribute('href')).toBeNull();
    expect(await page.getByTestId('message-content').getByText('data link').getAttribute('href')).toBeNull();
    expect(await page.getByTestId('message-content').getByText('control-char link').getAttribute('href')).toBeNull();
    await page.getByTestId('message-content').getByText('js link').click();
    const safe = page.getByTestId('message-content').getByText('safe link');
    expect(await safe.getAttribute('href')).toBe('https://example.com/docs');
    expect(await safe.getAttribute('rel')).toBe('noopener noreferrer');
    await h.shot(page, 'xss-02-html-message');
    await expectNothingRan(page, w, root, { hostile: true });
    // The logout pixel was loaded (same site) and refused: root is still signed in on this page.
    expect(await pageSessionAlive(page, root.id)).toBe(true);

    await page.goto(`/app/inbox/${ids.markdown}`);
    await page.getByTestId('message-content').locator('strong', { hasText: 'bold' }).waitFor();
    await expectInertContent(page, 'message-content');
    // A Markdown message that opens with a tag shows the tag as text.
    await page.getByTestId('message-content').getByText('<img src=x onerror=', { exact: false }).first().waitFor();
    expect(
      await page
        .getByTestId('message-content')
        .locator('a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
    ).toEqual(['https://example.com/docs']);
    await h.shot(page, 'xss-03-markdown-message');
    await expectNothingRan(page, w, root, { hostile: true });
  });

  it('notice, home page, about and footer set to payloads render inert on every page that shows them', async () => {
    for (const [key, value] of SETTINGS_PAYLOADS) await apiAs(root, 'PUT', '/api/option/', { key, value });
    await page.goto('/');
    await page.getByTestId('notice-content').waitFor();
    await expectInertContent(page, 'notice-content');
    await h.shot(page, 'xss-04-home-notice');
    await page.getByTestId('notice-close').click();
    await page.getByTestId('home-content').getByText('Welcome').waitFor();
    await expectInertContent(page, 'home-content');
    await page.locator('.tw-footer-custom').getByText('Footer text').waitFor();
    expect(
      await page.locator('.tw-footer-custom').evaluate((el) => el.querySelectorAll('[onerror],a[href]').length),
    ).toBe(0);
    await h.shot(page, 'xss-05-home-content-footer');
    await expectNothingRan(page, w, root, { hostile: true });

    await page.goto('/about');
    await page.getByTestId('about-content').getByText('About us').waitFor();
    await expectInertContent(page, 'about-content');
    expect(await page.getByTestId('about-content').getByText('about link').getAttribute('href')).toBeNull();
    await h.shot(page, 'xss-06-about');
    await expectNothingRan(page, w, root, { hostile: true });
  });

  it("the administrator cannot change root's message; the console shows it read-only and previews their own safely", async () => {
    const mine = (
      await apiAs<{ id: number }>(root, 'POST', '/api/admin/messages', {
        title: 'Root notice',
        content: 'from root',
        format: 'markdown',
        user_ids: [admin.id],
      })
    ).id;
    const { page: adminPage } = await h.newPage();
    const aw = await watch(adminPage);
    await login(adminPage, ADMIN);
    await adminPage.goto('/admin/messages');
    await adminPage.getByTestId(`message-readonly-${mine}`).waitFor();
    expect(await adminPage.getByTestId(`message-edit-${mine}`).count()).toBe(0);
    expect(await adminPage.getByTestId(`message-delete-${mine}`).count()).toBe(0);
    await h.shot(adminPage, 'xss-07-admin-messages-read-only');
    await adminPage.getByTestId(`message-edit-${ids.html}`).click();
    await adminPage.getByTestId('message-preview').getByText('Quarterly notice').waitFor();
    await expectInertContent(adminPage, 'message-preview');
    expect(await adminPage.getByTestId('message-format').locator('input[value="html"]').isChecked()).toBe(true);
    await adminPage.waitForTimeout(400);
    await h.shot(adminPage, 'xss-08-admin-messages-preview');
    await expectNothingRan(adminPage, aw, root, { hostile: true });
    const refused = await fetch(`${h.baseUrl}/api/admin/messages/${mine}`, {
      method: 'PUT',
      headers: { cookie: admin.cookie, 'new-api-user': String(admin.id), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x', content: 'x', format: 'html' }),
    });
    expect(refused.status).toBe(200);
    expect(await refused.json()).toEqual({
      success: false,
      message: 'only the author of a message or root may change it',
      code: 'message_author_only',
    });
    await adminPage.context().close();
  });

  it('framed pages are http(s) only and sandboxed; a script address in a chat link frames or opens nothing', async () => {
    // From here on no hostile markup is shown: no violation of any kind is allowed.
    w.cspErrors.length = 0;
    await page.route('https://chat.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Chat stand-in</h1>' }),
    );
    await page.route('https://home.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Home stand-in</h1>' }),
    );
    await apiAs(root, 'PUT', '/api/option/', {
      key: 'Chats',
      value: JSON.stringify([{ Bad: `javascript:${attack(31)}` }, { Good: 'https://chat.example/?key={key}' }]),
    });
    await apiAs(root, 'PUT', '/api/option/', { key: 'ChatLink', value: `javascript:${attack(32)}` });
    await apiAs(root, 'PUT', '/api/option/', { key: 'HomePageContent', value: 'https://home.example/landing' });
    await apiAs(root, 'PUT', '/api/option/', { key: 'Notice', value: '' });
    await apiAs(root, 'PUT', '/api/option/', { key: 'Footer', value: '' });

    // The console shows the last status and content it saw before the fresh answers arrive: forget the hostile ones.
    await page.evaluate(() =>
      ['status', 'content_home_page_content', 'content_about', 'content_notice'].forEach((k) =>
        localStorage.removeItem(k),
      ),
    );
    await page.goto('/chat/0');
    await page.getByTestId('chat-missing').waitFor();
    expect(await page.locator('iframe').count()).toBe(0);
    await page.goto('/chat/1');
    const chat = page.getByTestId('chat-frame');
    expect(await chat.getAttribute('sandbox')).toBe(
      'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads',
    );
    expect(await chat.getAttribute('src')).toMatch(/^https:\/\/chat\.example\/\?key=/);
    await page.frameLocator('[data-testid="chat-frame"]').getByText('Chat stand-in').waitFor();
    await page.goto('/chat2link');
    await page.getByTestId('chat-no-link').waitFor();
    expect(new URL(page.url()).pathname).toBe('/chat2link');
    await page.goto('/');
    expect(await page.getByTestId('home-frame').getAttribute('sandbox')).toContain('allow-scripts');
    await page.frameLocator('[data-testid="home-frame"]').getByText('Home stand-in').waitFor();
    await h.shot(page, 'xss-09-home-frame');
    await expectNothingRan(page, w, root, { hostile: false });
  });
});
