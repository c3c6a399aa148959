import { describe, expect, it } from 'vitest';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

describe('relay request rate limits', () => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway('sqlite', { mock: () => startMockUpstream({ record: false }) }, async (gw) => {
    ({ t, mock, root, base } = gw);
    await addChannel(root, { name: 'm', key: 'k', baseUrl: mock.url, models: 'gpt-4o-mini' });
  });

  const call = (key: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    });

  it('limits total and successful requests per user per window, with 429 in the OpenAI shape, unless exempt', async () => {
    for (const [key, value] of [
      ['ModelRequestRateLimitEnabled', 'true'],
      ['ModelRequestRateLimitCount', '3'],
      ['ModelRequestRateLimitSuccessCount', '1000'],
      ['ModelRequestRateLimitDurationMinutes', '1'],
    ]) {
      await root.call('PUT', '/api/option/', { key, value });
    }
    const u = await createUserClient(t.app, root, 'limited');
    await setQuota(root, u.userId!, 1_000_000);
    const { key } = await addToken(t, u.userId!, {});
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await call(key);
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { type: string; message: string } }).error).toMatchObject({
      type: 'rate_limit_error',
      message: expect.stringContaining('at most 3 requests'),
    });

    // Successful-request limit.
    await root.call('PUT', '/api/option/', { key: 'ModelRequestRateLimitCount', value: '0' });
    await root.call('PUT', '/api/option/', { key: 'ModelRequestRateLimitSuccessCount', value: '2' });
    const v = await createUserClient(t.app, root, 'limited2');
    await setQuota(root, v.userId!, 1_000_000);
    const { key: key2 } = await addToken(t, v.userId!, {});
    expect([(await call(key2)).status, (await call(key2)).status, (await call(key2)).status]).toEqual([200, 200, 429]);

    // An exempt group is not limited.
    await root.call('PUT', '/api/option/', { key: 'global.rate_limit_exempt_enabled', value: 'true' });
    await root.call('PUT', '/api/option/', {
      key: 'GroupRatio',
      value: JSON.stringify({ default: 1, vip: 1, svip: 1, 'bulk-ok': 1 }),
    });
    await root.call('PUT', '/api/user/', { id: v.userId, group: 'bulk-ok' });
    await addChannel(root, { name: 'bulk', key: 'k2', baseUrl: mock.url, models: 'gpt-4o-mini', group: 'bulk-ok' });
    expect((await call(key2)).status).toBe(200);
    await root.call('PUT', '/api/option/', { key: 'ModelRequestRateLimitEnabled', value: 'false' });
  });

  it("applies a token's own rate limit", async () => {
    const u = await createUserClient(t.app, root, 'token-limited');
    await setQuota(root, u.userId!, 1_000_000);
    const { key, id } = await addToken(t, u.userId!, {});
    await t.database.db.kysely
      .updateTable('tokens')
      .set({ rate_limit_enabled: 1, rate_limit_period: 60, rate_limit_count: 2, rate_limit_success: 100 })
      .where('id', '=', id)
      .execute();
    t.runtime.ctx.relay.tokenChanged(key.slice(3), id);
    expect([(await call(key)).status, (await call(key)).status, (await call(key)).status]).toEqual([200, 200, 429]);
  });
});
