import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, SCREENSHOTS, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'presetroot', password: 'preset-root-pass-1' };
/** The preset host's files: flexible changes gpt-4o, adds claude-x, keeps keep-me; mixed is the official source. */
const FILES: Record<string, unknown> = {
  '/flexible/prompt.json': { 'gpt-4o': 1.25, 'claude-x': 1.5, 'keep-me': 1 },
  '/flexible/completion.json': { 'gpt-4o': 4, 'claude-x': 5 },
  '/mixed/prompt.json': { 'official-a': 0.3, 'unrouted-model': 9 },
  '/mixed/completion.json': { 'official-a': 2 },
};

/**
 * Preset ratio sources in the visual ratio editor and the unset-models tab, against a preset host on this
 * machine that the fetch settings allow: preview a source's differences, fill missing then all models into the
 * editor, save; a source the host cannot serve shows the spec's toast; fill the unset models from the official
 * preset after a confirm, and the spec's toast when the fetch settings block the host.
 */
describe('preset ratio sources in Chromium', () => {
  let h: Harness;
  let root: Session;
  let page: Page;
  let host: http.Server;
  let port = 0;

  const option = async (key: string) =>
    (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).find((o) => o.key === key)?.value ??
    '';
  const setOption = (key: string, value: string) => apiAs(root, 'PUT', '/api/option/', { key, value });
  const toasts = (p: Page) => p.locator('.ant-message-notice').allTextContents();

  beforeAll(async () => {
    host = http.createServer((req, res) => {
      const file = FILES[req.url ?? ''];
      if (file === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such preset');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(file));
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    port = (host.address() as AddressInfo).port;
    h = await startHarness({ RATIO_PRESET_BASE_URL: `http://127.0.0.1:${port}` });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    // The documented way to let the server fetch from this machine: private addresses and the host's port.
    await setOption('fetch_setting.allow_private_ip', 'true');
    await setOption('fetch_setting.allowed_ports', JSON.stringify([String(port)]));
    await setOption('ModelRatio', JSON.stringify({ 'gpt-4o': 2.5, 'keep-me': 1 }));
    await setOption('CompletionRatio', JSON.stringify({ 'gpt-4o': 4 }));
    await setOption('ModelPrice', '{}');
    await setOption('CacheRatio', '{}');
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'preset-chan',
        type: 1,
        key: 'preset-key',
        base_url: 'http://127.0.0.1:9',
        models: 'gpt-4o,official-a,official-b',
        group: 'default',
      },
    });
    ({ page } = await h.newPage());
    await page.context().addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('login-username').waitFor({ timeout: 45_000 });
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    await new Promise<void>((resolve) => (host ? host.close(() => resolve()) : resolve()));
  });

  /** Waits for what a user would see: `selector` shown with its opening animation finished (a click during it can miss). */
  const settled = (p: Page, selector: string) =>
    p.waitForFunction((sel) => {
      const el = document.querySelector(sel);
      return (
        el !== null &&
        !/zoom|slide|motion|hidden/.test(el.className) &&
        el.getAnimations({ subtree: true }).length === 0
      );
    }, selector);
  /** Opens the preset modal from the visual editor already on screen, waited out (a click while it zooms in can miss). */
  const openPresetModal = async (p: Page) => {
    await p.getByTestId('ratio-preset').click();
    await p.getByTestId('preset-summary').waitFor();
    await settled(p, '.ant-modal');
  };
  const openPreset = async (p: Page) => {
    await p.goto('/admin/settings?tab=operation');
    await p.getByTestId('pricing-tab-visual').click();
    await openPresetModal(p);
  };
  const count = (kind: string) => page.getByTestId(`preset-count-${kind}`).textContent();

  it('previews a preset, fills the missing models, then all, and saves them with the editor', async () => {
    await openPreset(page);
    await expect.poll(() => count('added')).toBe('Added: 1');
    expect(await count('changed')).toBe('Changed: 1');
    expect(await count('unchanged')).toBe('Unchanged: 1');
    expect(await page.getByTestId('preset-row-gpt-4o').textContent()).toContain('2.5 → 1.25');
    expect(await page.getByTestId('preset-row-claude-x').textContent()).toContain('Added');
    await h.shot(page, 'ratio-preset-preview');
    await page
      .getByTestId('preset-modal')
      .screenshot({ path: path.join(SCREENSHOTS, 'ratio-preset-preview-modal.png') });

    await page.getByTestId('preset-fill-missing').click();
    await page.getByTestId('preset-modal').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('ratio-input-claude-x').inputValue()).toBe('1.5');
    expect(await page.getByTestId('ratio-output-claude-x').inputValue()).toBe('5');
    expect(await page.getByTestId('ratio-input-gpt-4o').inputValue()).toBe('2.5');
    // Staged only: nothing is saved before Save changes.
    expect(JSON.parse(await option('ModelRatio'))).toEqual({ 'gpt-4o': 2.5, 'keep-me': 1 });

    await openPresetModal(page);
    await expect.poll(() => count('changed')).toBe('Changed: 1');
    expect(await count('added')).toBe('Added: 0');
    await page.getByTestId('preset-fill-all').click();
    await page.getByTestId('preset-modal').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('ratio-input-gpt-4o').inputValue()).toBe('1.25');
    await h.shot(page, 'ratio-preset-filled');
    await page
      .getByTestId('settings-section-pricing')
      .screenshot({ path: path.join(SCREENSHOTS, 'ratio-preset-filled-editor.png') });

    await page.getByTestId('ratio-save').click();
    await expect.poll(() => toasts(page)).toContain('Settings updated');
    expect(JSON.parse(await option('ModelRatio'))).toEqual({ 'gpt-4o': 1.25, 'keep-me': 1, 'claude-x': 1.5 });
    expect(JSON.parse(await option('CompletionRatio'))).toEqual({ 'gpt-4o': 4, 'claude-x': 5 });
  });

  it("shows the spec's toast when a source cannot be fetched", async () => {
    await openPreset(page);
    // Every toast shown from now on, kept after it closes (a loaded machine may be slow to look).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seenToasts: string[] }).seenToasts = seen;
      new MutationObserver(() => {
        for (const n of document.querySelectorAll('.ant-message-notice'))
          if (n.textContent && !seen.includes(n.textContent)) seen.push(n.textContent);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    const select = page.getByTestId('preset-source');
    await select.click();
    await settled(page, '.ant-select-dropdown');
    await page.locator('.ant-select-dropdown .ant-select-item-option').filter({ hasText: 'OpenRouter' }).click();
    await expect.poll(() => select.textContent()).toContain('OpenRouter');
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { seenToasts: string[] }).seenToasts))
      .toContain('Get preset ratios failed, please retry');
    expect(await page.getByTestId('preset-error').textContent()).toContain('HTTP 404');
    expect(await page.getByTestId('preset-fill-all').isDisabled()).toBe(true);
    await page
      .getByTestId('preset-modal')
      .screenshot({ path: path.join(SCREENSHOTS, 'ratio-preset-fetch-failed.png') });
  });

  it('fills the unset models from the official preset after a confirm', async () => {
    // Blocked by the fetch settings: the spec's toast, nothing saved.
    await setOption('fetch_setting.allow_private_ip', 'false');
    await page.goto('/admin/settings?tab=operation');
    await page.getByTestId('pricing-tab-unset').click();
    await page.getByTestId('unset-row-official-a').waitFor();
    await page.getByTestId('unset-fill-official').click();
    await expect.poll(() => toasts(page)).toContain('Fill official ratios failed, please try again later');
    await h.shot(page, 'ratio-preset-official-failed');

    await setOption('fetch_setting.allow_private_ip', 'true');
    await page.getByTestId('unset-fill-official').click();
    await expect.poll(() => page.getByTestId('unset-official-confirm').textContent()).toContain('official-a');
    await h.shot(page, 'ratio-preset-official-confirm');
    await page
      .locator('.ant-modal-confirm')
      .screenshot({ path: path.join(SCREENSHOTS, 'ratio-preset-official-confirm-dialog.png') });
    await page.getByTestId('unset-official-ok').click();
    await page.getByTestId('unset-row-official-a').waitFor({ state: 'detached' });
    await page.getByTestId('unset-row-official-b').waitFor();
    expect(JSON.parse(await option('ModelRatio'))).toMatchObject({ 'official-a': 0.3 });
    expect(JSON.parse(await option('ModelRatio'))).not.toHaveProperty('unrouted-model');
    expect(JSON.parse(await option('CompletionRatio'))).toMatchObject({ 'official-a': 2 });
  });

  it('shows the preview in Chinese', async () => {
    const { page: zh } = await h.newPage();
    await zh.context().addInitScript(() => localStorage.setItem('i18nextLng', 'zh'));
    await login(zh, ROOT);
    await openPreset(zh);
    await expect.poll(() => zh.locator('.ant-modal-title').textContent()).toBe('从预设源获取倍率');
    expect(await zh.getByTestId('preset-count-unchanged').textContent()).toBe('不变：3');
    await zh.getByTestId('preset-modal').screenshot({ path: path.join(SCREENSHOTS, 'ratio-preset-preview-zh.png') });
  });
});
