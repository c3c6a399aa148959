import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_CACHE_HEADER } from '@tollway/shared';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway, type GatewayFixture } from '../support/fixture.js';
import { addChannel, addToken } from '../support/gateway.js';
import { newRedisPrefix, TEST_REDIS } from '../support/redis.js';

/**
 * The response cache's semantic mode (docs/operating/response-cache.md): a miss is looked up by the similarity of
 * its prompt's embedding, within its scope and with every other parameter equal. The embeddings upstream here gives
 * a bag-of-words vector, so prompts with the same words are identical (similarity 1) and others are not similar.
 */
const MODEL = 'semantic-chat';
const EMBED = 'semantic-embed';
const DIMENSIONS = 64;

/** An OpenAI embeddings upstream: each lowercase word of the input counts in one of DIMENSIONS buckets. */
function wordVector(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 5381;
    for (const ch of word) h = (h * 33 + ch.charCodeAt(0)) >>> 0;
    v[h % DIMENSIONS]! += 1;
  }
  return v;
}

function startEmbeddings(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      calls++;
      const body = JSON.parse(raw) as { input: string; model: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: [{ object: 'embedding', index: 0, embedding: wordVector(String(body.input)) }],
          usage: { prompt_tokens: 3, total_tokens: 3 },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        calls: () => calls,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

const save = async (root: Client, key: string, value: string) => {
  const res = await root.call('PUT', '/api/option/', { key, value });
  expect(res.body.success, `${key}: ${res.body.message}`).toBe(true);
};

const stores = (t: TestApp) => t.runtime.ctx.relay.responseCache.stores;
const stored = (t: TestApp, count: number) => expect.poll(() => stores(t)).toBe(count);

function ask(gw: GatewayFixture, key: string, content: string, temperature = 0) {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
  return client.chat.completions
    .create({ model: MODEL, temperature, messages: [{ role: 'user', content }] })
    .withResponse()
    .then((r) => r.response.headers.get(RESPONSE_CACHE_HEADER));
}

const setups = dialects
  .filter((d) => d === 'sqlite' || d === 'postgres')
  .map((d) => {
    const env: Record<string, string> =
      d === 'postgres' ? { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: newRedisPrefix() } : {};
    return [d, env] as const;
  });

describe.each(setups)('response cache, semantic mode (%s)', (dialect, env) => {
  let embeddings: Awaited<ReturnType<typeof startEmbeddings>>;
  beforeAll(async () => {
    embeddings = await startEmbeddings();
  });
  afterAll(() => embeddings.close());
  const gw = useGateway(dialect, { env, user: 'semantic-user', quota: 1_000_000 }, async (g) => {
    await save(g.root, 'ModelRatio', JSON.stringify({ [MODEL]: 1 }));
    await addChannel(g.root, { name: 'semantic-chat', key: 'semantic-key', baseUrl: g.mock.url, models: MODEL });
    await addChannel(g.root, { name: 'semantic-embed', key: 'embed-key', baseUrl: embeddings.url, models: EMBED });
    await save(g.root, 'response_cache.enabled', 'true');
    await save(g.root, 'response_cache.models', JSON.stringify([MODEL]));
    await save(g.root, 'response_cache.semantic_enabled', 'true');
    await save(g.root, 'response_cache.semantic_model', EMBED);
    await save(g.root, 'response_cache.semantic_threshold', '0.9');
  });

  it('answers a prompt worded alike from the cache, not a different one', async () => {
    const base = stores(gw.t);
    const upstream = gw.mock.requests.length;
    expect(await ask(gw, gw.key, 'What is the capital of France?')).toBe('miss');
    await stored(gw.t, base + 1);
    expect(await ask(gw, gw.key, 'what is the capital of france')).toBe('hit');
    expect(gw.mock.requests.length).toBe(upstream + 1);
    expect(await ask(gw, gw.key, 'Tell me a joke about cats')).toBe('miss');
    expect(gw.mock.requests.length).toBe(upstream + 2);
    expect(embeddings.calls()).toBeGreaterThanOrEqual(3);
    await stored(gw.t, base + 2);
  });

  it('never across scopes, and only with the other parameters equal', async () => {
    const base = stores(gw.t);
    expect(await ask(gw, gw.key, 'Name the largest planet')).toBe('miss');
    await stored(gw.t, base + 1);
    const other = await addToken(gw.t, gw.user.userId!, { name: 'semantic-other' });
    expect(await ask(gw, other.key, 'name the largest planet')).toBe('miss');
    expect(await ask(gw, gw.key, 'name the largest planet', 0.5)).toBe('miss');
    expect(await ask(gw, gw.key, 'NAME THE LARGEST PLANET!')).toBe('hit');
    await stored(gw.t, base + 3);
  });
});
