import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, lastLogOf } from '../support/gateway.js';

/**
 * The client address behind TRUST_PROXY / ReverseProxyEnabled, and without: a direct caller's X-Forwarded-For,
 * X-Real-IP or CF-Connecting-IP changes nothing (allow-lists, rate limits, logs read the connection's address).
 */
describe.each(dialects)('client address on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client, base: string;
  useGateway(dialect, { user: 'ip-user', quota: 5_000_000, env: { CRITICAL_RATE_LIMIT: '10' } }, async (gw) => {
    ({ t, root, user, base } = gw);
    await addChannel(root, { name: 'ip', key: 'ip-key', baseUrl: gw.mock.url, models: 'gpt-4o-mini' });
  });

  const setOption = async (key: string, value: string) => expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  const chat = (key: string, headers: Record<string, string>) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const models = (key: string, headers: Record<string, string>) => fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const spoof = { 'x-forwarded-for': '203.0.113.7', 'x-real-ip': '203.0.113.7', 'cf-connecting-ip': '203.0.113.7' };

  it('a direct caller cannot pass an IP allow-list or change its logged address with forwarding headers', async () => {
    const only = await addToken(t, user.userId!, { unlimited: true, allowIps: '203.0.113.7' });
    const hot = await chat(only.key, spoof);
    expect(hot.status).toBe(403);
    expect(((await hot.json()) as { error: { message: string } }).error.message).toMatch(/127\.0\.0\.1/);
    // A Fastify-served relay route reads the same address.
    expect((await models(only.key, spoof)).status).toBe(403);
    const open = await addToken(t, user.userId!, { unlimited: true });
    expect((await chat(open.key, spoof)).status).toBe(200);
    expect((await lastLogOf(t, 'gpt-4o-mini')).ip).toMatch(/127\.0\.0\.1$/);
  });

  it('behind nginx (ReverseProxyEnabled) the address is X-Real-IP, else the left-most X-Forwarded-For', async () => {
    await setOption('ReverseProxyEnabled', 'true');
    await setOption('ReverseProxyProvider', 'nginx');
    try {
      const only = await addToken(t, user.userId!, { unlimited: true, allowIps: '198.51.100.20' });
      expect((await chat(only.key, { 'x-real-ip': '198.51.100.20', 'x-forwarded-for': '10.0.0.1' })).status).toBe(200);
      expect((await lastLogOf(t, 'gpt-4o-mini')).ip).toBe('198.51.100.20');
      expect((await chat(only.key, { 'x-forwarded-for': '198.51.100.20, 10.0.0.1' })).status).toBe(200);
      expect((await models(only.key, { 'x-real-ip': '198.51.100.20' })).status).toBe(200);
      expect((await chat(only.key, { 'cf-connecting-ip': '198.51.100.20' })).status).toBe(403);
    } finally {
      await setOption('ReverseProxyEnabled', 'false');
    }
  });

  it('behind Cloudflare the address is CF-Connecting-IP', async () => {
    await setOption('ReverseProxyEnabled', 'true');
    await setOption('ReverseProxyProvider', 'cloudflare');
    try {
      const only = await addToken(t, user.userId!, { unlimited: true, allowIps: '192.0.2.55' });
      expect((await chat(only.key, { 'cf-connecting-ip': '192.0.2.55', 'x-real-ip': '10.0.0.9' })).status).toBe(200);
      expect((await lastLogOf(t, 'gpt-4o-mini')).ip).toBe('192.0.2.55');
      expect((await chat(only.key, { 'x-real-ip': '192.0.2.55' })).status).toBe(403);
    } finally {
      await setOption('ReverseProxyEnabled', 'false');
    }
  });

  it('the login rate limit counts a direct caller by its connection, whatever X-Forwarded-For it sends', async () => {
    const login = (n: number) =>
      fetch(`${base}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${n}` },
        body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }),
      });
    // 12 attempts, each claiming another address: were the header believed, each would have a fresh allowance.
    const statuses: number[] = [];
    for (let n = 1; n <= 12; n++) statuses.push((await login(n)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect(statuses.at(-1)).toBe(429);
  });
});
