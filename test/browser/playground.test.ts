import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, startHarness, type Harness } from './harness.js';

const ROOT = { username: 'pgroot', password: 'pg-root-pass-1' };

/** The playground in Chromium: without a token the user is sent to create one; with one, a streamed chat is billed. */
describe('playground in Chromium', () => {
  let h: Harness;
  let page: Page;
  let mock: MockUpstream;
  let admin: Session;
  beforeAll(async () => {
    mock = await startMockUpstream();
    h = await startHarness();
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    admin = await loginSession(h.baseUrl, ROOT);
    await apiAs(admin, 'PUT', '/api/user/', { id: admin.id, quota: 5_000_000 });
    await apiAs(admin, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'mock', type: 1, key: 'pg-key', base_url: mock.url, models: 'gpt-4o-mini', group: 'default' },
    });
    ({ page } = await h.newPage());
    await login(page, ROOT);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
  });

  it('without an enabled token shows the error and goes to the tokens page', async () => {
    await page.goto('/playground');
    await page
      .getByText(/还没有可用的令牌|no enabled token/)
      .first()
      .waitFor();
    await page.waitForURL('**/app/tokens', { timeout: 10_000 });
  });

  it('streams an answer from the model and bills the token', async () => {
    await apiAs(admin, 'POST', '/api/token/', { name: 'pg-token' });
    await page.goto('/playground');
    await page.getByTestId('pg-input').fill('Say hello');
    await page.getByTestId('pg-send').click();
    const answer = page.getByTestId('pg-turn-assistant').last();
    await expect.poll(() => answer.getAttribute('data-status')).toBe('complete');
    expect(await answer.textContent()).toBe('Hello from the mock!');
    expect(await page.getByTestId('pg-turn-user').last().textContent()).toBe('Say hello');
    await h.shot(page, 'playground-01-chat');
    // The upstream got the conversation and the playground's parameters; the call is in the usage log.
    expect(mock.requests.at(-1)!.body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      temperature: 0,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    await expect
      .poll(
        async () =>
          (
            await apiAs<{ items: { token_name: string; quota: number }[] }>(
              admin,
              'GET',
              '/api/log/self/?p=1&page_size=10&type=2',
            )
          ).items[0]?.token_name,
      )
      .toBe('pg-token');
  });

  it('embeds a saved chat link with the key and address filled in, and /chat2link goes to the chat link', async () => {
    const tokens = await apiAs<{ items: { id: number; status: number }[] }>(admin, 'GET', '/api/token/?p=0&size=100');
    const { key } = await apiAs<{ key: string }>(
      admin,
      'POST',
      `/api/token/${tokens.items.find((tk) => tk.status === 1)!.id}/key`,
    );
    await apiAs(admin, 'PUT', '/api/option/', {
      key: 'Chats',
      value: JSON.stringify([{ 'Web chat': `${h.baseUrl}/about?key={key}&api={address}` }]),
    });
    await apiAs(admin, 'PUT', '/api/option/', { key: 'ChatLink', value: `${h.baseUrl}/pricing?key={key}` });
    await page.goto('/');
    await page.goto('/chat/0');
    const src = await page.getByTestId('chat-frame').getAttribute('src');
    const url = new URL(src!);
    expect(url.searchParams.get('key')).toBe(`sk-${key}`);
    expect(url.searchParams.get('api')).toBe(h.baseUrl);
    await page.goto('/chat/5');
    await page.getByTestId('chat-missing').waitFor();
    await page.goto('/chat2link');
    await page.waitForURL((u) => u.pathname === '/pricing');
    expect(new URL(page.url()).searchParams.get('key')).toBe(`sk-${key}`);
  });
});
