import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import { concurrencyStore } from '../../src/relay/limits/concurrency.js';
import { LEASE_TTL_MS, RedisConcurrencyStore } from '../../src/relay/limits/concurrency-store.js';
import { createUserClient, setupRoot, type Client, type TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';

const MODEL = 'gpt-4o-mini';
const SLOW_KEY = 'slow-key';
/** Long enough for all 100 calls to reach the gate while the first ones are still upstream. */
const SLOW_MS = 1_500;
const LIMIT = 7;
const CALLS = 100;

/** tollway_concurrency_refusals_total of one level, in this process. */
async function refusals(level: 'token' | 'user'): Promise<number> {
  const m = metrics.getSingleMetric('tollway_concurrency_refusals_total');
  return (await m!.get()).values.find((v) => v.labels.level === level)?.value ?? 0;
}

const chat = (base: string, key: string, init: { model?: string; signal?: AbortSignal } = {}) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: init.model ?? MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    signal: init.signal ?? null,
  });

/** Fires `bases.length` calls at once (node i's base for call i) and counts the answers by status. */
async function burst(bases: string[], key: string) {
  const answers = await Promise.all(
    bases.map(async (base) => {
      const res = await chat(base, key);
      const body = (await res.json()) as { error?: { code?: string; type?: string } };
      return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') };
    }),
  );
  const served = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 429);
  return { served, refused, others: answers.filter((a) => a.status !== 200 && a.status !== 429) };
}

const setOption = async (root: Client, key: string, value: string) =>
  expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);

const fundedToken = async (t: TestApp, root: Client, name: string) => {
  const u = await createUserClient(t.app, root, name);
  await setQuota(root, u.userId!, 100_000_000);
  return { userId: u.userId!, ...(await addToken(t, u.userId!)) };
};

/** A token made through the token API with its own concurrency_limit; its key with the sk- prefix. */
async function ownLimitToken(t: TestApp, root: Client, name: string, limit: number) {
  const u = await createUserClient(t.app, root, name);
  await setQuota(root, u.userId!, 100_000_000);
  const made = await u.call<TokenView[] | TokenView>('POST', '/api/token/', {
    name,
    unlimited_quota: true,
    concurrency_limit: limit,
  });
  expect(made.body.success, made.body.message).toBe(true);
  const d = made.body.data!;
  const tok = Array.isArray(d) ? d[0]! : d;
  return { user: u, id: tok.id, key: tok.key.startsWith('sk-') ? tok.key : `sk-${tok.key}` };
}

interface TokenView {
  id: number;
  key: string;
  concurrency_limit: number;
}

describe('concurrency limits on one node (sqlite)', () => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway('sqlite', {}, async (gw) => {
    ({ t, mock, root, base } = gw);
    mock.behaviors.set(SLOW_KEY, { delayMs: SLOW_MS });
    await addChannel(root, { name: 'slow', key: SLOW_KEY, baseUrl: mock.url, models: MODEL });
  });
  afterAll(async () => setOption(root, 'TokenConcurrencyLimit', '0'));

  it(`a token limit of ${LIMIT}: of ${CALLS} parallel calls exactly ${LIMIT} are served, the rest get a coded 429`, async () => {
    await setOption(root, 'TokenConcurrencyLimit', String(LIMIT));
    const { key } = await fundedToken(t, root, 'cc-burst');
    const before = await refusals('token');
    const upstreamBefore = mock.requests.length;
    const r = await burst(Array<string>(CALLS).fill(base), key);
    expect(r.others).toEqual([]);
    expect(r.served).toBe(LIMIT);
    expect(r.refused).toHaveLength(CALLS - LIMIT);
    expect(new Set(r.refused.map((a) => a.code))).toEqual(new Set(['concurrency_limit_exceeded']));
    expect(new Set(r.refused.map((a) => a.retryAfter))).toEqual(new Set(['1']));
    expect(mock.requests.length - upstreamBefore).toBe(LIMIT);
    expect((await refusals('token')) - before).toBe(CALLS - LIMIT);
    // Every place was given back: the next burst is served the same way.
    expect((await burst(Array<string>(LIMIT).fill(base), key)).served).toBe(LIMIT);
  });

  it('places come back on every end: a client hanging up, an upstream failure, a refusal after admission', async () => {
    await setOption(root, 'TokenConcurrencyLimit', '1');
    const { key } = await fundedToken(t, root, 'cc-ends');
    // The client goes away mid-call.
    const gone = new AbortController();
    const pending = chat(base, key, { signal: gone.signal }).catch(() => undefined);
    await expect.poll(() => mock.requests.filter((q) => q.key === SLOW_KEY).length).toBeGreaterThan(0);
    gone.abort();
    await pending;
    await expect.poll(async () => (await chat(base, key)).status).toBe(200);
    // A refusal thrown after the place was taken (no channel for the model) gives it back.
    for (let i = 0; i < 3; i++) expect((await chat(base, key, { model: 'no-such-model' })).status).toBe(404);
    // An upstream failure gives it back.
    mock.behaviors.set(SLOW_KEY, { failStatus: 500 });
    try {
      for (let i = 0; i < 3; i++) expect((await chat(base, key)).status).toBe(500);
    } finally {
      mock.behaviors.set(SLOW_KEY, { delayMs: SLOW_MS });
    }
    expect((await chat(base, key)).status).toBe(200);
  });

  it("a token's own concurrency_limit wins over the option; set, changed and read through the token API", async () => {
    await setOption(root, 'TokenConcurrencyLimit', String(LIMIT));
    const { user, id, key } = await ownLimitToken(t, root, 'cc-own', 2);
    expect((await user.call<TokenView>('GET', `/api/token/${id}`)).body.data!.concurrency_limit).toBe(2);
    expect((await burst(Array<string>(6).fill(base), key)).served).toBe(2);
    // Back to 0: the option's limit applies.
    expect((await user.call('PUT', '/api/token/', { id, concurrency_limit: 0 })).body.success).toBe(true);
    expect((await user.call<TokenView>('GET', `/api/token/${id}`)).body.data!.concurrency_limit).toBe(0);
    expect((await burst(Array<string>(LIMIT + 2).fill(base), key)).served).toBe(LIMIT);
    // Out of range: refused by the token API.
    expect((await user.call('PUT', '/api/token/', { id, concurrency_limit: -1 })).body.success).toBe(false);
  });

  it("a user limit counts the calls of all the user's tokens", async () => {
    await setOption(root, 'TokenConcurrencyLimit', '0');
    await setOption(root, 'UserConcurrencyLimit', '3');
    try {
      const first = await fundedToken(t, root, 'cc-user');
      const second = await addToken(t, first.userId);
      const before = await refusals('user');
      const answers = await Promise.all(
        [first.key, second.key, first.key, second.key, first.key, second.key].map((k) => chat(base, k)),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(3);
      expect((await refusals('user')) - before).toBe(3);
    } finally {
      await setOption(root, 'UserConcurrencyLimit', '0');
    }
  });
});

describe('concurrency limits across two nodes sharing Redis (postgres)', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseA: string, baseB: string, prefix: string;
  useTwoNodes({}, async (nodes) => {
    ({ a, b, prefix } = nodes);
    mock = await startMockUpstream({ record: true });
    mock.behaviors.set(SLOW_KEY, { delayMs: SLOW_MS });
    root = await setupRoot(a.app);
    await addChannel(root, { name: 'slow', key: SLOW_KEY, baseUrl: mock.url, models: MODEL });
    await setOption(root, 'TokenConcurrencyLimit', String(LIMIT));
    baseA = await listen(a);
    baseB = await listen(b);
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('default', MODEL); i++)
      await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 100 && b.runtime.ctx.options.num('TokenConcurrencyLimit') !== LIMIT; i++)
      await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => mock?.close());

  it(`${CALLS} parallel calls split over both nodes: exactly ${LIMIT} served`, async () => {
    const { key, id } = await fundedToken(a, root, 'cc-cluster');
    const upstreamBefore = mock.requests.length;
    const r = await burst(
      Array.from({ length: CALLS }, (_, i) => (i % 2 ? baseB : baseA)),
      key,
    );
    expect(r.others).toEqual([]);
    expect(r.served).toBe(LIMIT);
    expect(r.refused).toHaveLength(CALLS - LIMIT);
    expect(new Set(r.refused.map((x) => x.code))).toEqual(new Set(['concurrency_limit_exceeded']));
    expect(mock.requests.length - upstreamBefore).toBe(LIMIT);
    // Every lease was removed when its call ended.
    const redis = new Redis(TEST_REDIS);
    try {
      await expect.poll(() => redis.zcard(`${prefix}cc:token:${id}`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it('a node renews the leases of its calls in flight, and removes them when they end', async () => {
    const store = concurrencyStore(a.runtime.ctx);
    expect(store).toBeInstanceOf(RedisConcurrencyStore);
    const redis = new Redis(TEST_REDIS);
    const slot = { level: 'token' as const, id: 'renewed', limit: 1 };
    const key = `${prefix}cc:token:renewed`;
    try {
      const lease = await store.acquire([slot]);
      if (typeof lease === 'number') throw new Error('refused');
      const expiry = Number(await redis.zscore(key, lease.id));
      expect(expiry - Number((await redis.time())[0]) * 1000).toBeGreaterThan(LEASE_TTL_MS - 5_000);
      await new Promise((r) => setTimeout(r, 20));
      await (store as RedisConcurrencyStore).renew();
      expect(Number(await redis.zscore(key, lease.id))).toBeGreaterThan(expiry);
      expect(await redis.pttl(key)).toBeGreaterThan(LEASE_TTL_MS - 5_000);
      store.release(lease);
      await expect.poll(() => redis.zcard(key)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it("a token's own limit, set on one node, holds across both", async () => {
    const { user, id, key } = await ownLimitToken(a, root, 'cc-own-cluster', 3);
    expect((await user.call<TokenView>('GET', `/api/token/${id}`)).body.data!.concurrency_limit).toBe(3);
    const r = await burst(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? baseB : baseA)),
      key,
    );
    expect(r.served).toBe(3);
    expect(r.refused).toHaveLength(7);
  });

  it("a crashed node's leases stop counting once they expire; live ones count", async () => {
    const { key, id } = await fundedToken(a, root, 'cc-crashed');
    const redis = new Redis(TEST_REDIS);
    const slot = `${prefix}cc:token:${id}`;
    try {
      // A node that died holding every place: its leases were last renewed longer than LEASE_TTL_MS ago.
      const [sec] = await redis.time();
      const past = Number(sec) * 1000 - 1;
      for (let i = 0; i < LIMIT; i++) await redis.zadd(slot, past, `crashed-${i}`);
      expect((await chat(baseB, key)).status).toBe(200);
      expect(await redis.zcard(slot)).toBe(0);
      // A live node holding every place (renewed within the TTL): the call is refused.
      for (let i = 0; i < LIMIT; i++) await redis.zadd(slot, Number(sec) * 1000 + LEASE_TTL_MS, `live-${i}`);
      expect((await chat(baseA, key)).status).toBe(429);
    } finally {
      await redis.del(slot);
      redis.disconnect();
    }
  });
});
