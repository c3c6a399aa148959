import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createUserClient, setupRoot, type Client, type TestApp } from '../support/app.js';
import { addChannel, addToken, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { chatBody, freshWindow, rateHeadersOf, setTokenLimits } from '../support/rate-limits.js';
import { TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';

const MODEL = 'gpt-4o-mini';
/** The mock's usage of every answer: 12 prompt + 5 completion tokens. */
const USED = 17;

/** Two nodes sharing PostgreSQL and Redis count one limit together. */
describe('RPM and TPM limits across two nodes with Redis', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseA: string, baseB: string, prefix: string;
  useTwoNodes({}, async (nodes) => {
    ({ a, b, prefix } = nodes);
    mock = await startMockUpstream({ record: false });
    root = await setupRoot(a.app);
    await addChannel(root, { name: 'shared', key: 'shared-key', baseUrl: mock.url, models: MODEL });
    baseA = await listen(a);
    baseB = await listen(b);
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('default', MODEL); i++)
      await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => mock?.close());

  const call = (base: string, key: string, body: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
  const limitedToken = async (name: string, rpm: number, tpm: number) => {
    const u = await createUserClient(a.app, root, name);
    await setQuota(root, u.userId!, 100_000_000);
    const { key, id } = await addToken(a, u.userId!);
    await setTokenLimits(a, key, id, rpm, tpm);
    await setTokenLimits(b, key, id, rpm, tpm);
    return { key, id };
  };

  it('one RPM limit counts the calls of both nodes', async () => {
    await freshWindow();
    const { key, id } = await limitedToken('cluster-rpm', 3, 0);
    const { body } = chatBody(MODEL, 10);
    const seen: [number, string | undefined][] = [];
    for (const base of [baseA, baseB, baseA, baseB]) {
      const res = await call(base, key, body);
      seen.push([res.status, rateHeadersOf(res)['x-ratelimit-remaining-requests']]);
    }
    expect(seen).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    const redis = new Redis(TEST_REDIS);
    try {
      expect(await redis.keys(`${prefix}rl:token:${id}:*`)).toHaveLength(1);
      expect(await redis.ttl((await redis.keys(`${prefix}rl:token:${id}:*`))[0]!)).toBeGreaterThan(60);
    } finally {
      redis.disconnect();
    }
  });

  /** Waits until Redis holds `tokens` in the token's counter (settlements go to Redis after the answer). */
  const settledTo = async (id: number, tokens: number) => {
    const redis = new Redis(TEST_REDIS);
    try {
      const [counter] = await redis.keys(`${prefix}rl:token:${id}:*:t`);
      for (let i = 0; i < 100 && (await redis.get(counter!)) !== String(tokens); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await redis.get(counter!)).toBe(String(tokens));
    } finally {
      redis.disconnect();
    }
  };

  it('one TPM limit: a reservation on one node is settled and seen on the other', async () => {
    await freshWindow();
    const { body, estimate } = chatBody(MODEL, 150);
    const limit = estimate + 20;
    const { key, id } = await limitedToken('cluster-tpm', 0, limit);
    const first = await call(baseA, key, body);
    expect(rateHeadersOf(first)['x-ratelimit-remaining-tokens']).toBe('20');
    await settledTo(id, USED);
    const second = await call(baseB, key, body);
    expect(second.status).toBe(200);
    expect(rateHeadersOf(second)['x-ratelimit-remaining-tokens']).toBe(String(limit - USED - estimate));
    await settledTo(id, 2 * USED);
    const refused = await call(baseA, key, body);
    expect(refused.status).toBe(429);
    expect(rateHeadersOf(refused)['x-ratelimit-remaining-tokens']).toBe(String(limit - 2 * USED));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
  it('a call under no limit sends Redis no rate-limit command; a limited one sends one', async () => {
    const u = await createUserClient(a.app, root, 'cluster-free');
    await setQuota(root, u.userId!, 100_000_000);
    const { key } = await addToken(a, u.userId!);
    const redis = a.runtime.ctx.redis!;
    const seen: string[] = [];
    const original = { evalsha: redis.evalsha.bind(redis), eval: redis.eval.bind(redis) };
    const spy = (name: 'evalsha' | 'eval') =>
      ((...args: unknown[]) => {
        seen.push(args.map(String).join(' '));
        return (original[name] as (...a: unknown[]) => unknown)(...args);
      }) as never;
    redis.evalsha = spy('evalsha');
    redis.eval = spy('eval');
    const limited = await limitedToken('cluster-limited', 100, 0);
    const rateCommands = () => seen.filter((c) => c.includes(`${prefix}rl:`)).length;
    try {
      const res = await call(baseA, key, chatBody(MODEL, 10).body);
      expect(res.status).toBe(200);
      expect(rateHeadersOf(res)).toEqual({});
      expect(rateCommands()).toBe(0);
      // The spy does see them: a limited call makes exactly one.
      expect((await call(baseA, limited.key, chatBody(MODEL, 10).body)).status).toBe(200);
      expect(rateCommands()).toBe(1);
    } finally {
      redis.evalsha = original.evalsha as never;
      redis.eval = original.eval as never;
    }
  });
});
