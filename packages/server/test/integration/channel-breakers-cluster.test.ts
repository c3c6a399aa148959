import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createUserClient, setupRoot, type Client, type TestApp } from '../support/app.js';
import { addChannel, addToken, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';

const MODEL = 'breaker-cluster-model';
const FAULTY_KEY = 'brkc-faulty';
const HEALTHY_KEY = 'brkc-healthy';
const MIN_FAILURES = 3;
/** Longer than the 5 s refresh, so an open state Redis lost is still open when the refresh writes it back. */
const COOLDOWN_S = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (check: () => boolean | Promise<boolean>, ms = 3000) => {
  for (let waited = 0; waited < ms && !(await check()); waited += 25) await sleep(25);
  return check();
};

/** Two nodes on PostgreSQL and Redis: a breaker opened by one node's traffic is open on the other too. */
describe('channel breakers across two nodes', () => {
  let mock: MockUpstream;
  let root: Client;
  let key = '';
  let bases: string[] = [];
  let faultyId = 0;
  const nodes = useTwoNodes({}, async ({ a, b }) => {
    mock = await startMockUpstream();
    root = await setupRoot(a.app);
    for (const [k, value] of Object.entries({
      ModelPrice: JSON.stringify({ [MODEL]: 0.001 }),
      RetryTimes: '1',
      ChannelBreakerMinFailures: String(MIN_FAILURES),
      ChannelBreakerCooldownSeconds: String(COOLDOWN_S),
    })) {
      expect((await root.call('PUT', '/api/option/', { key: k, value })).body.success, k).toBe(true);
    }
    faultyId = await addChannel(root, {
      name: 'faulty',
      key: FAULTY_KEY,
      baseUrl: mock.url,
      models: MODEL,
      priority: 10,
    });
    await addChannel(root, { name: 'healthy', key: HEALTHY_KEY, baseUrl: mock.url, models: MODEL, priority: 0 });
    mock.behaviors.set(FAULTY_KEY, { failStatus: 503 });
    const u = await createUserClient(a.app, root, 'breaker-cluster-user');
    await setQuota(root, u.userId!, 100_000_000);
    key = (await addToken(a, u.userId!, {})).key;
    bases = [await listen(a), await listen(b)];
    await until(
      () =>
        b.runtime.ctx.channelCache.hasModel('default', MODEL) &&
        b.runtime.ctx.options.get('ChannelBreakerMinFailures') === String(MIN_FAILURES),
    );
  });
  afterAll(async () => mock?.close());

  const call = async (node: number) => {
    const res = await fetch(`${bases[node]}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const hits = () => mock.requests.filter((r) => r.key === FAULTY_KEY).length;
  const stateOn = (t: TestApp) => t.runtime.ctx.breakers.health(faultyId).state;

  it('shares the open state, gives one probe cluster-wide, closes everywhere, and writes back what Redis lost', async () => {
    const { a, b, prefix } = nodes;
    // Node A's traffic opens the breaker; node B learns it at once and sends nothing to the faulty channel.
    for (let i = 0; i < MIN_FAILURES; i++) expect(await call(0)).toBe(200);
    expect(stateOn(a)).toBe('open');
    expect(await until(() => stateOn(b) === 'open', 1000)).toBe(true);
    const redis = new Redis(TEST_REDIS);
    try {
      expect(await redis.get(`${prefix}brk:${faultyId}`)).toMatch(/^open\|\d+\|1$/);
      for (let i = 0; i < 4; i++) expect(await call(1)).toBe(200);
      expect(hits()).toBe(MIN_FAILURES);

      // Redis loses the state (a restart): the node that holds it writes it back on its next refresh.
      await redis.del(`${prefix}brk:${faultyId}`);
      expect(await until(async () => (await redis.get(`${prefix}brk:${faultyId}`)) !== null, 7000)).toBe(true);

      // After the cool-down exactly one node wins the probe; concurrent calls on both nodes send one call there.
      mock.behaviors.set(FAULTY_KEY, { delayMs: 300 });
      expect(
        await until(() => stateOn(a) === 'half_open' && stateOn(b) === 'half_open', COOLDOWN_S * 1000 + 4000),
      ).toBe(true);
      const probes = [a, b].filter((t) => t.runtime.ctx.breakers.find(String(faultyId))?.probeReady).length;
      expect(probes).toBe(1);
      const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => call(i % 2)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(hits()).toBe(MIN_FAILURES + 1);

      // The probe succeeded: closed on both nodes, nothing left in Redis.
      expect(await until(() => stateOn(a) === 'closed' && stateOn(b) === 'closed', 1000)).toBe(true);
      expect(await redis.get(`${prefix}brk:${faultyId}`)).toBeNull();
      expect(await redis.sismember(`${prefix}brk:index`, String(faultyId))).toBe(0);
    } finally {
      redis.disconnect();
    }
  });
});
