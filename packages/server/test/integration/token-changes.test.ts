import { describe, expect, it } from 'vitest';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

const MODEL = 'gpt-4o-mini';
const DISABLED = 2;
/** A disabled token is known and refused; a deleted one is unknown. */
const FORBIDDEN = 403;
const UNAUTHORIZED = 401;

describe('token changes reach the relay at once (the tokens service emits, the relay drops its cached copy)', () => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway('sqlite', { mock: () => startMockUpstream({ record: false }) }, async (gw) => {
    ({ t, mock, root, base } = gw);
    await addChannel(root, { name: 'm', key: 'k', baseUrl: mock.url, models: MODEL });
  });

  const call = async (key: string) =>
    (
      await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
      })
    ).status;

  it('refuses a token its owner disabled, then deleted, with no wait for a cache sync', async () => {
    const u = await createUserClient(t.app, root, 'token-owner');
    await setQuota(root, u.userId!, 1_000_000);
    const { key, id } = await addToken(t, u.userId!, {});
    // The first call puts the token in the relay's cache.
    expect(await call(key)).toBe(200);

    expect((await u.call('PUT', '/api/token/?status_only=true', { id, status: DISABLED })).body.success).toBe(true);
    expect(await call(key)).toBe(FORBIDDEN);

    expect((await u.call('PUT', '/api/token/?status_only=true', { id, status: 1 })).body.success).toBe(true);
    expect(await call(key)).toBe(200);

    expect((await u.call('DELETE', `/api/token/${id}`)).body.success).toBe(true);
    expect(await call(key)).toBe(UNAUTHORIZED);
  });
});
