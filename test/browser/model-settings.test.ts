import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { startHarness, type Harness } from './harness.js';

const ROOT = { username: 'modelsroot', password: 'models-root-pass-1' };

/**
 * The models tab of the settings: the Gemini and Claude sections show their options, a JSON field is
 * checked on blur, and a saved Claude thinking budget share and header override take effect in the relay — the
 * mock Anthropic upstream receives them for a `-thinking` model called with the OpenAI SDK.
 */
describe('Claude and Gemini settings in Chromium', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  let page: Page;
  let sdk: OpenAI;

  const option = async (key: string) =>
    (await apiAs<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).find((o) => o.key === key)?.value;

  beforeAll(async () => {
    mock = await startMockUpstream();
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    await apiAs(root, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'claude-sonnet-4': 1.5 }) });
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'claude-mock',
        type: 14,
        key: 'models-claude-key',
        base_url: mock.url,
        models: 'claude-sonnet-4,claude-sonnet-4-thinking',
        group: 'default',
      },
    });
    await apiAs(root, 'PUT', '/api/user/', { id: root.id, quota: 50_000_000 });
    const [tok] = await apiAs<{ key: string }[]>(root, 'POST', '/api/token/', {
      name: 'models',
      unlimited_quota: true,
    });
    sdk = new OpenAI({
      apiKey: tok!.key.startsWith('sk-') ? tok!.key : `sk-${tok!.key}`,
      baseURL: `${h.baseUrl}/v1`,
      maxRetries: 0,
    });

    ({ page } = await h.newPage());
    await page.context().addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await page.goto('/login');
    await page.getByTestId('login-username').waitFor({ timeout: 45_000 });
    await page.getByTestId('login-username').fill(ROOT.username);
    await page.getByTestId('login-password').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('shows every Gemini and Claude option of the models tab', async () => {
    await page.goto('/admin/settings?tab=models');
    const keys = [
      'gemini.safety_settings',
      'gemini.version_settings',
      'gemini.supported_imagine_models',
      'gemini.thinking_adapter_enabled',
      'gemini.thinking_adapter_budget_tokens_percentage',
      'gemini.models_supported_thinking_budget',
      'claude.model_headers_settings',
      'claude.default_max_tokens',
      'claude.thinking_adapter_enabled',
      'claude.thinking_adapter_budget_tokens_percentage',
    ];
    for (const k of keys) await page.getByTestId(`option-${k}`).waitFor();
    expect(await page.getByTestId('option-gemini.safety_settings').inputValue()).toContain('"default": "OFF"');
    expect(await page.getByTestId('option-claude.thinking_adapter_budget_tokens_percentage').inputValue()).toBe('0.8');
    await expect
      .poll(() => page.getByTestId('settings-section-claude').textContent())
      .toContain('lose the suffix and turn thinking on');
    await h.shot(page, 'models-settings-tab');
  });

  it('refuses a JSON field that is not JSON, on blur', async () => {
    const field = page.getByTestId('option-claude.default_max_tokens');
    await field.fill('{"default": 8192');
    await field.blur();
    await page.getByTestId('settings-section-claude').getByText('Not a valid JSON string').waitFor();
    await field.fill('{"default": 8192, "claude-sonnet-4": 6000}');
    await field.blur();
    await expect
      .poll(() => page.getByTestId('settings-section-claude').getByText('Not a valid JSON string').count())
      .toBe(0);
  });

  it('saves the Claude section and the relay sends the new budget share and headers upstream', async () => {
    const section = page.getByTestId('settings-section-claude');
    await page.getByTestId('option-claude.thinking_adapter_budget_tokens_percentage').fill('0.5');
    await page
      .getByTestId('option-claude.model_headers_settings')
      .fill('{"claude-sonnet-4": {"anthropic-beta": ["output-128k-2025-02-19"]}}');
    await h.shot(page, 'models-settings-claude-edited');
    await section.getByTestId('settings-save-claude').click();
    await expect.poll(() => option('claude.thinking_adapter_budget_tokens_percentage')).toBe('0.5');
    expect(JSON.parse((await option('claude.default_max_tokens'))!)).toEqual({
      default: 8192,
      'claude-sonnet-4': 6000,
    });

    const res = await sdk.chat.completions.create({
      model: 'claude-sonnet-4-thinking',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    // max_tokens from the saved per-model default (6000), half of it for thinking
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4',
      max_tokens: 6000,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 3000 },
    });
    expect(sent.headers['anthropic-beta']).toBe('output-128k-2025-02-19');
    await page.reload();
    await expect
      .poll(() => page.getByTestId('option-claude.thinking_adapter_budget_tokens_percentage').inputValue())
      .toBe('0.5');
  });
});
