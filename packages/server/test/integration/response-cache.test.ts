import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { parseLogOther, RESPONSE_CACHE_HEADER } from '@tollway/shared';
import { dialects } from '../support/databases.js';
import { useGateway, type GatewayFixture } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, lastLogOf } from '../support/gateway.js';
import { newRedisPrefix, TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';
import { createUserClient, setupRoot, type Client, type TestApp } from '../support/app.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

/**
 * The response cache (docs/operating/response-cache.md): a repeated request within its scope is answered without an
 * upstream call, replayed in the caller's protocol (a stream as the stream it was), billed at the hit share of the
 * price and logged as a hit. The mock answers 12 prompt and 5 completion tokens; at ratio 2 a call costs 34.
 */
const MODEL = 'cached-model';
const CLAUDE = 'cached-claude';
const FULL_PRICE = 34;

const save = async (root: Client, key: string, value: unknown) => {
  const res = await root.call('PUT', '/api/option/', {
    key,
    value: typeof value === 'string' ? value : JSON.stringify(value),
  });
  expect(res.body.success, `${key}: ${res.body.message}`).toBe(true);
};

async function priceAndCache(root: Client, baseUrl: string): Promise<void> {
  await save(root, 'ModelRatio', { [MODEL]: 2, [CLAUDE]: 2 });
  await save(root, 'CompletionRatio', { [MODEL]: 1, [CLAUDE]: 1 });
  await save(root, 'response_cache.enabled', 'true');
  await save(root, 'response_cache.models', [MODEL, CLAUDE]);
  await addChannel(root, { name: 'cached', key: 'cache-key', baseUrl, models: MODEL });
  await addChannel(root, { name: 'cached-claude', key: 'cache-claude', baseUrl, type: 14, models: CLAUDE });
}

/** The user's spendable balance as the relay's ledger keeps it (memory, or Redis in a cluster), settlements committed. */
async function userQuota(t: TestApp, userId: number): Promise<number> {
  await drainWriter(t);
  return (await t.runtime.ctx.relay.ledger.available('users', userId))!;
}

/** Answers the node stored so far. */
const stores = (t: TestApp) => t.runtime.ctx.relay.responseCache.stores;
/**
 * Waits until the node has stored `count` answers (a miss is stored after its settlement, which may come after
 * the caller has its answer).
 */
const stored = (t: TestApp, count: number) => expect.poll(() => stores(t)).toBe(count);

const upstreamCalls = (mock: MockUpstream) => mock.requests.length;

function chat(gw: GatewayFixture, key: string, content: string) {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
  return client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content }], temperature: 0 })
    .withResponse();
}

const setups = dialects
  .filter((d) => d === 'sqlite' || d === 'postgres')
  .map((d) => {
    const env: Record<string, string> =
      d === 'postgres' ? { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: newRedisPrefix() } : {};
    return [d, env] as const;
  });

describe.each(setups)('response cache (%s)', (dialect, env) => {
  const gw = useGateway(dialect, { env, user: 'cache-user', quota: 1_000_000 }, (g) =>
    priceAndCache(g.root, g.mock.url),
  );

  it('answers a repeated request from the cache: no upstream call, marked hit, free at share 0, logged as a hit', async () => {
    const base = stores(gw.t);
    const before = upstreamCalls(gw.mock);
    const quota0 = await userQuota(gw.t, gw.user.userId!);
    const first = await chat(gw, gw.key, 'what is two plus two');
    expect(first.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('miss');
    await stored(gw.t, base + 1);
    const quota1 = await userQuota(gw.t, gw.user.userId!);
    expect(quota0 - quota1).toBe(FULL_PRICE);

    // The same content with other key order and a `user` field: the same canonical request.
    const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
    const second = await client.chat.completions
      .create({
        temperature: 0,
        messages: [{ content: 'what is two plus two', role: 'user' }],
        model: MODEL,
        user: 'x',
      })
      .withResponse();
    expect(second.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('hit');
    expect(second.data).toEqual(first.data);
    expect(upstreamCalls(gw.mock)).toBe(before + 1);
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(quota1);
    const log = await lastLogOf(gw.t, MODEL);
    expect(Number(log.quota)).toBe(0);
    expect(log.channel_id).toBe(0);
    expect(parseLogOther(log.other).cache_hit).toBe(true);
    expect([log.prompt_tokens, log.completion_tokens].map(Number)).toEqual([12, 5]);
  });

  it('never serves one token’s answer to another in token scope; shares it in group scope', async () => {
    const base = stores(gw.t);
    const other = await addToken(gw.t, gw.user.userId!, { name: 'other' });
    const before = upstreamCalls(gw.mock);
    await chat(gw, gw.key, 'scope question');
    await stored(gw.t, base + 1);
    const b = await chat(gw, other.key, 'scope question');
    expect(b.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('miss');
    expect(upstreamCalls(gw.mock)).toBe(before + 2);

    await save(gw.root, 'response_cache.scope', 'group');
    try {
      await chat(gw, gw.key, 'scope question');
      await stored(gw.t, base + 3);
      const shared = await chat(gw, other.key, 'scope question');
      expect(shared.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('hit');
      expect(upstreamCalls(gw.mock)).toBe(before + 3);
    } finally {
      await save(gw.root, 'response_cache.scope', 'token');
    }
  });

  it('bills a hit at the configured share of the price, rounded down to whole quota', async () => {
    const base = stores(gw.t);
    await save(gw.root, 'response_cache.hit_price_share', '0.5');
    try {
      await chat(gw, gw.key, 'half price question');
      await stored(gw.t, base + 1);
      const before = await userQuota(gw.t, gw.user.userId!);
      const hit = await chat(gw, gw.key, 'half price question');
      expect(hit.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('hit');
      const after = await userQuota(gw.t, gw.user.userId!);
      expect(before - after).toBe(FULL_PRICE / 2);
      expect(Number((await lastLogOf(gw.t, MODEL)).quota)).toBe(FULL_PRICE / 2);
      await save(gw.root, 'response_cache.hit_price_share', '0.3');
      const third = await chat(gw, gw.key, 'half price question');
      expect(third.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('hit');
      // 34 × 0.3 = 10.2: 10 charged, never more than the share.
      expect(after - (await userQuota(gw.t, gw.user.userId!))).toBe(10);
    } finally {
      await save(gw.root, 'response_cache.hit_price_share', '0');
    }
  });

  it('replays a streamed answer as the same SSE events, usage included', async () => {
    const base = stores(gw.t);
    const body = {
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user' as const, content: 'stream me' }],
    };
    const send = () =>
      fetch(`${gw.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const before = upstreamCalls(gw.mock);
    const miss = await send();
    expect(miss.headers.get(RESPONSE_CACHE_HEADER)).toBe('miss');
    const original = await miss.text();
    await stored(gw.t, base + 1);
    const hit = await send();
    expect(hit.headers.get(RESPONSE_CACHE_HEADER)).toBe('hit');
    expect(hit.headers.get('content-type')).toContain('text/event-stream');
    expect(await hit.text()).toBe(original);
    expect(original).toContain('"usage"');
    expect(upstreamCalls(gw.mock)).toBe(before + 1);

    // The SDK reads the replay as a stream: the same text and the usage chunk.
    const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ ...body, stream: true });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe('Hello from the mock!');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    expect(upstreamCalls(gw.mock)).toBe(before + 1);
    // A stream and a plain request of the same messages are cached apart.
    const plain = await chat(gw, gw.key, 'stream me');
    expect(plain.response.headers.get(RESPONSE_CACHE_HEADER)).toBe('miss');
    await stored(gw.t, base + 2);
  });

  it('replays an Anthropic stream to an Anthropic client', async () => {
    const base = stores(gw.t);
    const claude = new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0 });
    const ask = async () => {
      const { data: stream, response } = await claude.messages
        .create({ model: CLAUDE, max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi claude' }] })
        .withResponse();
      let text = '';
      let output = 0;
      for await (const e of stream) {
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
        if (e.type === 'message_delta') output = e.usage.output_tokens;
      }
      return { text, output, header: response.headers.get(RESPONSE_CACHE_HEADER) };
    };
    const before = upstreamCalls(gw.mock);
    const miss = await ask();
    await stored(gw.t, base + 1);
    const hit = await ask();
    expect(miss.header).toBe('miss');
    expect(hit).toEqual({ ...miss, header: 'hit' });
    expect(hit.output).toBeGreaterThan(0);
    expect(upstreamCalls(gw.mock)).toBe(before + 1);
  });

  it('forgets an answer at its TTL; a model not opted in is not cached', async () => {
    const base = stores(gw.t);
    await save(gw.root, 'response_cache.ttl_seconds', '1');
    try {
      const before = upstreamCalls(gw.mock);
      await chat(gw, gw.key, 'short lived');
      await stored(gw.t, base + 1);
      expect((await chat(gw, gw.key, 'short lived')).response.headers.get(RESPONSE_CACHE_HEADER)).toBe('hit');
      await new Promise((r) => setTimeout(r, 1100));
      expect((await chat(gw, gw.key, 'short lived')).response.headers.get(RESPONSE_CACHE_HEADER)).toBe('miss');
      expect(upstreamCalls(gw.mock)).toBe(before + 2);
      await stored(gw.t, base + 2);
    } finally {
      await save(gw.root, 'response_cache.ttl_seconds', '3600');
    }
    await save(gw.root, 'response_cache.models', [CLAUDE]);
    try {
      const off = await chat(gw, gw.key, 'what is two plus two');
      expect(off.response.headers.get(RESPONSE_CACHE_HEADER)).toBeNull();
    } finally {
      await save(gw.root, 'response_cache.models', [MODEL, CLAUDE]);
    }
  });
});

describe('response cache on two nodes sharing Redis', () => {
  let mock: MockUpstream;
  let key = '';
  const nodes = useTwoNodes({}, async ({ a }) => {
    mock = await startMockUpstream();
    const root = await setupRoot(a.app);
    await priceAndCache(root, mock.url);
    const user = await createUserClient(a.app, root, 'cluster-cache');
    await root.call('PUT', '/api/user/', { id: user.userId, quota: 1_000_000 });
    key = (await addToken(a, user.userId!)).key;
  });

  it('an answer stored by one node is a hit on the other', async () => {
    const { a, b } = nodes;
    const ask = async (t: TestApp) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        payload: { model: MODEL, messages: [{ role: 'user', content: 'across nodes' }] },
      });
      return { header: res.headers[RESPONSE_CACHE_HEADER], body: res.json() as unknown };
    };
    const miss = await ask(a);
    await stored(a, 1);
    // The bus carries the stored key to node B's index.
    await expect.poll(() => b.runtime.ctx.relay.responseCache.indexed).toBe(1);
    const hit = await ask(b);
    expect(miss.header).toBe('miss');
    expect(hit).toEqual({ ...miss, header: 'hit' });
    expect(mock.requests.length).toBe(1);
    await mock.close();
  });
});
