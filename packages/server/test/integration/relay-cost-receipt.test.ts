import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, lastLogOf, userQuota } from '../support/gateway.js';
import { listenLocally } from '../support/local-server.js';

/**
 * The cost receipt (docs/using/cost-receipts.md): a billed answer's X-Tollway-Cost-Quota and X-Tollway-Cost
 * headers, and `usage.cost`/`usage.cost_quota` when an OpenAI client asks with `"usage": {"include": true}`, are
 * the charge: the consume log's quota and the balance's change, exactly.
 */

const QUOTA = 10_000_000;
/** Ratio 10, completion ratio 2: the mock's 12 prompt and 5 completion tokens cost (12 + 5 × 2) × 10 quota. */
const RATIO_MODEL = 'receipt-ratio';
const RATIO_QUOTA = (12 + 5 * 2) * 10;
/** $0.002 a call: 1,000 quota at 500,000 a dollar. */
const FIXED_MODEL = 'receipt-fixed';
const FIXED_PRICE = 0.002;
const FIXED_QUOTA = 1_000;
const CLAUDE_MODEL = 'receipt-claude';
/** $0.04 an image: two images are 40,000 quota. */
const IMAGE_MODEL = 'receipt-image';
const IMAGE_PRICE = 0.04;
const IMAGE_QUOTA = 2 * IMAGE_PRICE * 500_000;
const CNY_RATE = 7.3;
const QUOTA_PER_USD = 500_000;
/** Served first by an upstream that breaks its plain answer off, then by the mock. */
const BROKEN_MODEL = 'receipt-broken';

/** An OpenAI-format upstream whose plain answers break off after their first bytes. */
async function breakingUpstream() {
  let calls = 0;
  const server = http.createServer((req, res) => {
    calls++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-broken","choices":[{"index":0,"message":{"role":"assistant","content":"Hel');
      setTimeout(() => res.socket?.destroy(), 20);
    });
  });
  const local = await listenLocally(server);
  return { ...local, calls: () => calls };
}

interface CostUsage {
  cost?: number;
  cost_quota?: number;
}

describe.each(dialects)('cost receipts on %s', (dialect) => {
  let broken: Awaited<ReturnType<typeof breakingUpstream>>;
  afterAll(async () => broken?.close());
  const gw = useGateway(dialect, { user: 'receipt-user', quota: QUOTA }, async (g) => {
    const options = {
      ModelRatio: JSON.stringify({ [RATIO_MODEL]: 10, [CLAUDE_MODEL]: 10 }),
      CompletionRatio: JSON.stringify({ [RATIO_MODEL]: 2, [CLAUDE_MODEL]: 2 }),
      ModelPrice: JSON.stringify({
        [FIXED_MODEL]: FIXED_PRICE,
        [IMAGE_MODEL]: IMAGE_PRICE,
        [BROKEN_MODEL]: FIXED_PRICE,
      }),
      RetryTimes: '1',
    };
    for (const [key, value] of Object.entries(options)) {
      const res = await g.root.call('PUT', '/api/option/', { key, value });
      if (!res.body.success) throw new Error(`${key}: ${res.body.message}`);
    }
    await addChannel(g.root, {
      name: 'oa',
      key: 'oa-key',
      baseUrl: g.mock.url,
      models: `${RATIO_MODEL},${FIXED_MODEL},${IMAGE_MODEL}`,
    });
    await addChannel(g.root, { name: 'an', key: 'an-key', baseUrl: g.mock.url, type: 14, models: CLAUDE_MODEL });
    broken = await breakingUpstream();
    await addChannel(g.root, {
      name: 'broken',
      key: 'bk-key',
      baseUrl: broken.url,
      models: BROKEN_MODEL,
      priority: 10,
    });
    await addChannel(g.root, { name: 'whole', key: 'wh-key', baseUrl: g.mock.url, models: BROKEN_MODEL });
  });

  const openai = () => new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0 });
  const userId = () => gw.user.userId!;
  const usd = (quota: number) => quota / QUOTA_PER_USD;

  /** Runs a call; returns its receipt headers, with the log row's quota and the balance's change it caused. */
  async function charged(run: () => Promise<Headers>, model: string) {
    const before = await userQuota(gw.t, userId());
    const headers = await run();
    const spent = before - (await userQuota(gw.t, userId()));
    const row = await lastLogOf(gw.t, model);
    return { headers, spent, logged: Number(row.quota) };
  }

  const receiptOf = (h: Headers) => ({ quota: h.get('x-tollway-cost-quota'), cost: h.get('x-tollway-cost') });

  it('a plain OpenAI answer carries its charge in headers; usage.cost only when asked', async () => {
    const plain = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({ model: RATIO_MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect((data.usage as CostUsage).cost).toBeUndefined();
      return response.headers;
    }, RATIO_MODEL);
    expect(plain.spent).toBe(RATIO_QUOTA);
    expect(plain.logged).toBe(RATIO_QUOTA);
    expect(receiptOf(plain.headers)).toEqual({ quota: String(RATIO_QUOTA), cost: `${usd(RATIO_QUOTA)} USD` });

    let usage: CostUsage | undefined;
    const asked = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({
          model: RATIO_MODEL,
          messages: [{ role: 'user', content: 'hi' }],
          // OpenRouter's switch; not in the SDK's types.
          ...({ usage: { include: true } } as object),
        })
        .withResponse();
      usage = data.usage as CostUsage;
      expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
      return response.headers;
    }, RATIO_MODEL);
    expect(asked.spent).toBe(RATIO_QUOTA);
    expect(usage).toMatchObject({ cost: usd(RATIO_QUOTA), cost_quota: RATIO_QUOTA });
    expect(receiptOf(asked.headers).quota).toBe(String(asked.logged));
    // Tollway's own field is not sent upstream (OpenAI refuses unknown fields).
    expect(gw.mock.requests.at(-1)!.body).not.toHaveProperty('usage');
  });

  it('embeddings: the header, and usage.cost when asked', async () => {
    let usage: CostUsage | undefined;
    const embedded = await charged(async () => {
      const { data, response } = await openai()
        .embeddings.create({ model: RATIO_MODEL, input: ['a', 'b'], ...({ usage: { include: true } } as object) })
        .withResponse();
      expect(data.data).toHaveLength(2);
      usage = data.usage as CostUsage;
      return response.headers;
    }, RATIO_MODEL);
    // 12 prompt tokens at ratio 10.
    expect([embedded.logged, embedded.spent]).toEqual([120, 120]);
    expect(receiptOf(embedded.headers)).toEqual({ quota: '120', cost: `${usd(120)} USD` });
    expect(usage).toMatchObject({ prompt_tokens: 12, cost: usd(120), cost_quota: 120 });
  });

  it('a ratio-priced stream: no header (the cost is not known before it), usage.cost in the last chunk when asked', async () => {
    let last: CostUsage | undefined;
    let chunks = 0;
    const asked = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({
          model: RATIO_MODEL,
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          ...({ usage: { include: true } } as object),
        })
        .withResponse();
      for await (const chunk of data) {
        chunks++;
        if (chunk.usage) last = chunk.usage as CostUsage;
      }
      return response.headers;
    }, RATIO_MODEL);
    expect(chunks).toBeGreaterThan(1);
    expect(receiptOf(asked.headers)).toEqual({ quota: null, cost: null });
    expect(last).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 5,
      cost: usd(RATIO_QUOTA),
      cost_quota: RATIO_QUOTA,
    });
    expect(asked.logged).toBe(RATIO_QUOTA);
    expect(asked.spent).toBe(RATIO_QUOTA);

    // Not asked: the usage chunk only with include_usage, and no cost in it.
    let plainUsage: CostUsage | undefined;
    const stream = await openai().chat.completions.create({
      model: RATIO_MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) if (chunk.usage) plainUsage = chunk.usage as CostUsage;
    expect(plainUsage).toBeDefined();
    expect(plainUsage!.cost).toBeUndefined();
  });

  it('a per-call price: the header on plain and streamed answers, and in usage when asked', async () => {
    const plain = await charged(async () => {
      const { response } = await openai()
        .chat.completions.create({ model: FIXED_MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      return response.headers;
    }, FIXED_MODEL);
    expect(receiptOf(plain.headers)).toEqual({ quota: String(FIXED_QUOTA), cost: `${FIXED_PRICE} USD` });
    expect([plain.logged, plain.spent]).toEqual([FIXED_QUOTA, FIXED_QUOTA]);

    let last: CostUsage | undefined;
    const streamed = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({
          model: FIXED_MODEL,
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          ...({ usage: { include: true } } as object),
        })
        .withResponse();
      for await (const chunk of data) if (chunk.usage) last = chunk.usage as CostUsage;
      return response.headers;
    }, FIXED_MODEL);
    expect(receiptOf(streamed.headers)).toEqual({ quota: String(FIXED_QUOTA), cost: `${FIXED_PRICE} USD` });
    expect(last).toMatchObject({ cost: FIXED_PRICE, cost_quota: FIXED_QUOTA });
    expect([streamed.logged, streamed.spent]).toEqual([FIXED_QUOTA, FIXED_QUOTA]);

    // The consume log the console reads (GET /api/log/) shows the same quota.
    const logs = await gw.root.call<{ items: { quota: number; model_name: string }[] }>(
      'GET',
      `/api/log/?type=2&model_name=${FIXED_MODEL}`,
    );
    expect(logs.body.data!.items[0]).toMatchObject({ model_name: FIXED_MODEL, quota: FIXED_QUOTA });
  });

  it('the Responses API: usage.cost in the answer and in response.completed when asked', async () => {
    let usage: CostUsage | undefined;
    const plain = await charged(async () => {
      const { data, response } = await openai()
        .responses.create({ model: RATIO_MODEL, input: 'hi', ...({ usage: { include: true } } as object) })
        .withResponse();
      expect(data.output_text).toBe('Hello from the mock!');
      usage = data.usage as CostUsage;
      return response.headers;
    }, RATIO_MODEL);
    expect([plain.logged, plain.spent]).toEqual([RATIO_QUOTA, RATIO_QUOTA]);
    expect(receiptOf(plain.headers).quota).toBe(String(RATIO_QUOTA));
    expect(usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 5,
      cost: usd(RATIO_QUOTA),
      cost_quota: RATIO_QUOTA,
    });
    expect(gw.mock.requests.at(-1)!.body).not.toHaveProperty('usage');

    let completed: CostUsage | undefined;
    const streamed = await charged(async () => {
      const { data, response } = await openai()
        .responses.create({
          model: RATIO_MODEL,
          input: 'hi',
          stream: true,
          ...({ usage: { include: true } } as object),
        })
        .withResponse();
      for await (const event of data)
        if (event.type === 'response.completed') completed = event.response.usage as CostUsage;
      return response.headers;
    }, RATIO_MODEL);
    expect(completed).toMatchObject({ cost: usd(RATIO_QUOTA), cost_quota: RATIO_QUOTA });
    expect([streamed.logged, streamed.spent]).toEqual([RATIO_QUOTA, RATIO_QUOTA]);
  });

  it('an image generation priced per image carries the charge of its images', async () => {
    const images = await charged(async () => {
      const { data, response } = await openai()
        .images.generate({ model: IMAGE_MODEL, prompt: 'a lighthouse', n: 2 })
        .withResponse();
      expect(data.data).toHaveLength(2);
      return response.headers;
    }, IMAGE_MODEL);
    expect([images.logged, images.spent]).toEqual([IMAGE_QUOTA, IMAGE_QUOTA]);
    expect(receiptOf(images.headers)).toEqual({ quota: String(IMAGE_QUOTA), cost: `${2 * IMAGE_PRICE} USD` });
  });

  it('the Anthropic SDK: the header on a plain answer; an OpenAI client of a Claude channel gets usage.cost', async () => {
    const claude = await charged(async () => {
      const { data, response } = await anthropic()
        .messages.create({ model: CLAUDE_MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(data.content[0]).toMatchObject({ type: 'text' });
      return response.headers;
    }, CLAUDE_MODEL);
    expect(claude.spent).toBe(claude.logged);
    expect(receiptOf(claude.headers)).toEqual({
      quota: String(claude.logged),
      cost: `${usd(claude.logged)} USD`,
    });

    let usage: CostUsage | undefined;
    const converted = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({
          model: CLAUDE_MODEL,
          messages: [{ role: 'user', content: 'hi' }],
          ...({ usage: { include: true } } as object),
        })
        .withResponse();
      usage = data.usage as CostUsage;
      return response.headers;
    }, CLAUDE_MODEL);
    expect(usage).toMatchObject({ cost: usd(converted.logged), cost_quota: converted.logged });
    expect(receiptOf(converted.headers).quota).toBe(String(converted.spent));

    let last: CostUsage | undefined;
    const streamed = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({
          model: CLAUDE_MODEL,
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          ...({ usage: { include: true } } as object),
        })
        .withResponse();
      for await (const chunk of data) if (chunk.usage) last = chunk.usage as CostUsage;
      return response.headers;
    }, CLAUDE_MODEL);
    expect(last).toMatchObject({ cost: usd(streamed.logged), cost_quota: streamed.logged });
    expect(streamed.spent).toBe(streamed.logged);
  });

  it('a plain answer the upstream breaks off reaches no client: the next channel serves it, billed once', async () => {
    const served = await charged(async () => {
      const { data, response } = await openai()
        .chat.completions.create({ model: BROKEN_MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe('Hello from the mock!');
      return response.headers;
    }, BROKEN_MODEL);
    expect(broken.calls()).toBe(1);
    expect(receiptOf(served.headers).quota).toBe(String(FIXED_QUOTA));
    expect([served.logged, served.spent]).toEqual([FIXED_QUOTA, FIXED_QUOTA]);
  });

  it('X-Tollway-Cost follows the display currency (CNY at USDExchangeRate)', async () => {
    for (const [key, value] of [
      ['general_setting.quota_display_type', 'CNY'],
      ['USDExchangeRate', String(CNY_RATE)],
    ]) {
      const res = await gw.root.call('PUT', '/api/option/', { key, value });
      expect(res.body.success, res.body.message).toBe(true);
    }
    try {
      const { response } = await openai()
        .chat.completions.create({ model: FIXED_MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(receiptOf(response.headers)).toEqual({
        quota: String(FIXED_QUOTA),
        cost: `${Number((FIXED_PRICE * CNY_RATE).toFixed(10))} CNY`,
      });
    } finally {
      await gw.root.call('PUT', '/api/option/', { key: 'general_setting.quota_display_type', value: 'USD' });
    }
  });
});
