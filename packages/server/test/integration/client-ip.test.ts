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

  const setOption = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  const chat = (key: string, headers: Record<string, string>) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const models = (key: string, headers: Record<string, string>) =>
    fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}`, ...headers } });
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

  it('behind nginx (ReverseProxyEnabled, the connection from a loopback or private address) the address is X-Real-IP, else the right-most X-Forwarded-For entry that is no proxy', async () => {
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

/**
 * Issue 31, hole 9: behind TRUST_PROXY the client address is the right-most X-Forwarded-For entry that is not a
 * trusted proxy (walking from the right), never the left-most one, which whoever called the proxy wrote.
 */
describe('TRUST_PROXY: the right-most untrusted X-Forwarded-For entry', () => {
  const chatOf = (base: string) => (key: string, headers: Record<string, string>) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const loginOf = (base: string) => (xff: string) =>
    fetch(`${base}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
      body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }),
    });

  describe('TRUST_PROXY=true (one hop: the peer is the proxy)', () => {
    const gw = useGateway(
      'sqlite',
      { user: 'hop-user', quota: 5_000_000, env: { TRUST_PROXY: 'true', CRITICAL_RATE_LIMIT: '10' } },
      async (g) => {
        await addChannel(g.root, { name: 'hop', key: 'hop-key', baseUrl: g.mock.url, models: 'gpt-4o-mini' });
      },
    );

    it('a spoofed left-most entry neither passes an IP allow-list nor becomes the logged address', async () => {
      const chat = chatOf(gw.base);
      const only = await addToken(gw.t, gw.user.userId!, { unlimited: true, allowIps: '203.0.113.9' });
      expect((await chat(only.key, { 'x-forwarded-for': '203.0.113.9, 127.0.0.1' })).status).toBe(403);
      // The address the proxy appended (the right-most) is the client's.
      expect((await chat(only.key, { 'x-forwarded-for': '127.0.0.1, 203.0.113.9' })).status).toBe(200);
      expect((await lastLogOf(gw.t, 'gpt-4o-mini')).ip).toBe('203.0.113.9');
      expect((await chat(only.key, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    });

    it('the login rate limit counts the address the proxy saw, whatever the caller prepended', async () => {
      const login = loginOf(gw.base);
      const statuses: number[] = [];
      for (let n = 1; n <= 12; n++) statuses.push((await login(`192.0.2.${n}, 198.51.100.1`)).status);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
      expect(statuses.at(-1)).toBe(429);
    });
  });

  describe('TRUST_PROXY as a list of trusted proxies', () => {
    const gw = useGateway(
      'sqlite',
      { user: 'cidr-user', quota: 5_000_000, env: { TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' } },
      async (g) => {
        await addChannel(g.root, { name: 'cidr', key: 'cidr-key', baseUrl: g.mock.url, models: 'gpt-4o-mini' });
      },
    );

    it('skips every trusted proxy from the right and takes the first address that is not one', async () => {
      const chat = chatOf(gw.base);
      const only = await addToken(gw.t, gw.user.userId!, { unlimited: true, allowIps: '198.51.100.7' });
      expect(
        (await chat(only.key, { 'x-forwarded-for': '203.0.113.5, 198.51.100.7, 10.1.2.3, 10.0.0.1' })).status,
      ).toBe(200);
      expect((await lastLogOf(gw.t, 'gpt-4o-mini')).ip).toBe('198.51.100.7');
      expect((await chat(only.key, { 'x-forwarded-for': '198.51.100.7, 203.0.113.5, 10.1.2.3' })).status).toBe(403);
    });
  });

  describe('TRUST_PROXY naming proxies the connection does not come from', () => {
    const gw = useGateway(
      'sqlite',
      { user: 'far-user', quota: 5_000_000, env: { TRUST_PROXY: '10.0.0.0/8' } },
      async (g) => {
        await addChannel(g.root, { name: 'far', key: 'far-key', baseUrl: g.mock.url, models: 'gpt-4o-mini' });
      },
    );

    it('believes no forwarding header, not even with ReverseProxyEnabled', async () => {
      const chat = chatOf(gw.base);
      const only = await addToken(gw.t, gw.user.userId!, { unlimited: true, allowIps: '198.51.100.20' });
      expect((await chat(only.key, { 'x-forwarded-for': '198.51.100.20' })).status).toBe(403);
      for (const [key, value] of Object.entries({ ReverseProxyEnabled: 'true', ReverseProxyProvider: 'nginx' }))
        expect((await gw.root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
      expect((await chat(only.key, { 'x-real-ip': '198.51.100.20', 'x-forwarded-for': '198.51.100.20' })).status).toBe(
        403,
      );
    });
  });
});
