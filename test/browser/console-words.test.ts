import http from 'node:http';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLocally, type LocalServer } from '../../packages/server/test/support/local-server.js';
import { apiAs, setUpRoot, type Session } from './api-session.js';
import { pageApi, SCREENSHOTS, setOptions, type Harness } from './harness.js';
import { openAs, startPrivateHarness, type Lang } from './tables-fixture.js';

const ROOT = { username: 'wordsroot', password: 'words-root-pass-1' };
const ADMIN = { username: 'wordsadmin', password: 'words-admin-pass-1' };
const READER = { username: 'wordsreader', password: 'words-reader-pass-1' };
const VIEWPORT = { width: 1366, height: 860 };
const WELL_KNOWN = '/.well-known/openid-configuration';

/** What each language must show (and the English codes the zh console must no longer show). */
const WORDS = {
  zh: {
    signIn: '登录',
    setting: '修改设置',
    option: '设置项 #Notice',
    promote: '提升为管理员',
    user: (id: number) => `用户 #${id}`,
    prompt: ['提示词', '英文提示词'],
    format: 'Markdown 格式',
    oidcLabels: ['客户端 ID', '客户端密钥', '授权端点', '令牌端点', '用户信息端点'],
    blocked: '无法读取 OIDC 发现文档',
  },
  en: {
    signIn: 'Sign in',
    setting: 'Change a setting',
    option: 'Setting #Notice',
    promote: 'Promote to admin',
    user: (id: number) => `User #${id}`,
    prompt: ['Prompt', 'Prompt (English)'],
    format: 'Markdown',
    oidcLabels: ['Client ID', 'Client secret', 'Authorization endpoint', 'Token endpoint', 'User info endpoint'],
    blocked: 'Cannot read the OIDC discovery document',
  },
} as const;

/**
 * The console's words in zh and en where codes and English showed before: audit actions and targets, the drawing
 * log's prompt columns, message formats, and the OIDC settings, whose well-known fetch now goes through the server.
 */
describe('console words and the OIDC discovery in Chromium', () => {
  let h: Harness;
  let idp: LocalServer;
  let root: Session;
  let readerId: number;
  const idpHits: string[] = [];
  const state = new Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>();
  const contexts: BrowserContext[] = [];
  const open = async (who: typeof ROOT, lang: Lang): Promise<Page> => {
    const { context, page } = await openAs(h, who, lang, VIEWPORT, state);
    contexts.push(context);
    return page;
  };

  beforeAll(async () => {
    idp = await listenLocally(
      http.createServer((req, res) => {
        idpHits.push(req.url ?? '');
        if (req.url !== WELL_KNOWN) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            issuer: idp.url,
            authorization_endpoint: `${idp.url}/authorize`,
            token_endpoint: `${idp.url}/token`,
            userinfo_endpoint: `${idp.url}/userinfo`,
          }),
        );
      }),
    );
    h = await startPrivateHarness();
    root = await setUpRoot(h.baseUrl, ROOT);
    await apiAs(root, 'POST', '/api/user/', { ...ADMIN, display_name: 'Ops' });
    readerId = (await apiAs<{ id: number }>(root, 'POST', '/api/user/', { ...READER, display_name: 'Reader' })).id;
    // Audit rows: root's sign-in and option change, a promotion; a Markdown message to the reader.
    await apiAs(root, 'PUT', '/api/option/', { key: 'Notice', value: 'hello' });
    await apiAs(root, 'POST', '/api/user/manage', { id: readerId, action: 'promote' });
    await apiAs(root, 'POST', '/api/user/manage', { id: readerId, action: 'demote' });
    await apiAs(root, 'POST', '/api/admin/messages', {
      title: 'Maintenance',
      content: 'Restart **tonight**.',
      format: 'markdown',
      user_ids: [readerId],
    });
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await h?.close();
    await idp?.close();
  });

  it.each(['zh', 'en'] as const)('the audit log words actions and targets in %s', async (lang) => {
    const w = WORDS[lang];
    const page = await open(ROOT, lang);
    await page.goto('/admin/audit');
    const table = page.getByTestId('audit-table');
    const option = table.locator('tr', { has: page.locator('[data-code="option.update"]') }).first();
    await option.waitFor();
    expect(await option.getByTestId('audit-action').textContent()).toBe(w.setting);
    expect(await option.getByTestId('audit-target').textContent()).toBe(w.option);
    const promote = table.locator('tr', { has: page.locator('[data-code="user.promote"]') }).first();
    expect(await promote.getByTestId('audit-action').textContent()).toBe(w.promote);
    expect(await promote.getByTestId('audit-target').textContent()).toBe(w.user(readerId));
    const signIn = table.locator('tr', { has: page.locator('[data-code="auth.login"]') }).first();
    expect(await signIn.getByTestId('audit-action').textContent()).toBe(w.signIn);
    // No stored code shows as the row's words.
    const shown = (await table.locator('tbody').textContent()) ?? '';
    for (const code of ['auth.login', 'option.update', 'user.promote', 'user #', 'option #'])
      expect(shown).not.toContain(code);
    await page.mouse.move(0, 0);
    await h.shot(page, `console-words-audit-${lang}`);
    // The action filter lists the words and searches by the code.
    await page.getByTestId('audit-filter-action').click();
    await page.keyboard.type(w.promote);
    await page.locator('.ant-select-item-option', { hasText: w.promote }).first().click();
    await page.getByTestId('audit-search').click();
    await expect
      .poll(async () => [...new Set(await table.getByTestId('audit-action').allTextContents())])
      .toEqual([w.promote]);
  });

  it.each(['zh', 'en'] as const)('the drawing log and message formats are worded in %s', async (lang) => {
    const w = WORDS[lang];
    const page = await open(ROOT, lang);
    await page.goto('/app/logs/drawing');
    const heads = page.locator('.ant-table-thead th');
    await expect
      .poll(async () => (await heads.allTextContents()).filter((t) => w.prompt.includes(t as never)))
      .toEqual([...w.prompt]);
    if (lang === 'zh') expect(await heads.allTextContents()).not.toContain('PromptEn');
    await h.shot(page, `console-words-drawing-${lang}`);

    await page.goto('/admin/messages');
    await expect.poll(() => page.getByTestId('message-format-tag').first().textContent()).toBe(w.format);
    await h.shot(page, `console-words-messages-${lang}`);
    const reader = await open(READER, lang);
    await reader.goto('/app/inbox');
    await reader.getByText('Maintenance').first().click();
    await expect.poll(() => reader.getByTestId('inbox-format').textContent()).toBe(w.format);
  });

  it.each(['zh', 'en'] as const)(
    'the OIDC settings are worded in %s and fetch a newly typed well-known URL through the server',
    async (lang) => {
      const w = WORDS[lang];
      const page = await open(ROOT, lang);
      const cspErrors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
      });
      await page.goto('/admin/settings?tab=system');
      // Private addresses blocked (the default): the server refuses and says why; the IdP is never called.
      await setOptions(page, [
        ['fetch_setting.allowed_ports', JSON.stringify([String(idp.port)])],
        ['fetch_setting.allow_private_ip', 'false'],
        ['oidc.authorization_endpoint', ''],
      ]);
      await page.reload();
      const section = page.getByTestId('settings-section-oidc');
      await section.scrollIntoViewIfNeeded();
      const labels = await section.locator('.ant-form-item-label').allTextContents();
      for (const label of w.oidcLabels) expect(labels).toContain(label);
      const before = idpHits.length;
      await page.getByTestId('option-oidc.well_known').fill(`${idp.url}${WELL_KNOWN}`);
      await page.getByTestId('oidc-fetch-well-known').click();
      await page.locator('.ant-message-notice', { hasText: w.blocked }).first().waitFor();
      expect(idpHits.length).toBe(before);
      expect(await page.getByTestId('option-oidc.authorization_endpoint').inputValue()).toBe('');

      await setOptions(page, [['fetch_setting.allow_private_ip', 'true']]);
      await page.getByTestId('oidc-fetch-well-known').click();
      await expect
        .poll(() => page.getByTestId('option-oidc.authorization_endpoint').inputValue())
        .toBe(`${idp.url}/authorize`);
      expect(await page.getByTestId('option-oidc.token_endpoint').inputValue()).toBe(`${idp.url}/token`);
      expect(await page.getByTestId('option-oidc.user_info_endpoint').inputValue()).toBe(`${idp.url}/userinfo`);
      expect(idpHits.at(-1)).toBe(WELL_KNOWN);
      expect(cspErrors).toEqual([]);
      // The section alone (the settings page is long); the blocked and fetched toasts have been seen above.
      await section.screenshot({ path: path.join(SCREENSHOTS, `console-words-oidc-${lang}.png`) });
      // An administrator who is not root is refused by the server as well.
      const admin = await open(ADMIN, lang);
      await admin.goto('/app/tokens');
      const refused = await pageApi(admin, 'POST', '/api/oauth/oidc/discovery', {
        well_known_url: `${idp.url}${WELL_KNOWN}`,
      });
      expect(refused.success).toBe(false);
      expect(idpHits.at(-1)).toBe(WELL_KNOWN);
    },
  );
});
