import fc from 'fast-check';
import { computeQuota, type Price } from '@tollway/shared';
import { describe, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { assertMoneyInvariant, fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';

const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);
const QUOTA_PER_UNIT = 500_000;
/** Per-image model prices (USD, standard 1024²) and gpt-image-1's token ratios, as the options set them. */
const IMAGE_PRICES = { 'dall-e-3': 0.04, 'dall-e-2': 0.02 } as const;
const GPT_IMAGE: Price = {
  mode: 'ratio',
  modelRatio: 2.5,
  completionRatio: 4,
  cacheRatio: 1,
  cacheCreationRatio: 1,
  groupRatio: 1,
};

/** OpenAI's published per-image prices relative to the standard 1024² image of the model. */
function priceFactor(model: keyof typeof IMAGE_PRICES, size: string, quality: string): number {
  if (model === 'dall-e-3')
    return (size === '1024x1024' ? 1 : 2) * (quality === 'hd' ? (size === '1024x1024' ? 2 : 1.5) : 1);
  return size === '512x512' ? 0.9 : size === '256x256' ? 0.8 : 1;
}

interface ImageCall {
  model: 'dall-e-3' | 'dall-e-2' | 'gpt-image-1';
  edit: boolean;
  n: number;
  size: string;
  quality: string;
}

type Json = Record<string, any>;

/** What the client received from one image call, at the model's price: the images it got, or the tokens it was told of. */
function valueOf(c: ImageCall, status: number, body: Json): number {
  if (status !== 200) return 0;
  if (c.model === 'gpt-image-1') {
    const u = body.usage as { input_tokens: number; output_tokens: number } | undefined;
    return u
      ? computeQuota(GPT_IMAGE, { promptTokens: u.input_tokens, completionTokens: u.output_tokens }, QUOTA_PER_UNIT)
      : 0;
  }
  const images = (body.data as unknown[]).length;
  const perImage = IMAGE_PRICES[c.model] * priceFactor(c.model, c.size, c.quality);
  return computeQuota(
    { mode: 'price', modelPrice: perImage * images, groupRatio: 1 },
    { promptTokens: 0, completionTokens: 0 },
    QUOTA_PER_UNIT,
  );
}

/** One images call (generation as JSON, edit as a multipart upload); the value the client received. */
async function imageCall(base: string, key: string, c: ImageCall): Promise<number> {
  const auth = { authorization: `Bearer ${key}` };
  let res: Response;
  if (c.edit) {
    const form = new FormData();
    for (const [k, v] of Object.entries({
      model: c.model,
      prompt: 'add a hat',
      n: String(c.n),
      size: c.size,
      quality: c.quality,
    }))
      form.set(k, v);
    form.set('image', new Blob([new Uint8Array(2048)], { type: 'image/png' }), 'in.png');
    res = await fetch(`${base}/v1/images/edits`, { method: 'POST', headers: auth, body: form });
  } else {
    res = await fetch(`${base}/v1/images/generations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: c.model, prompt: 'a lighthouse', n: c.n, size: c.size, quality: c.quality }),
    });
  }
  const text = await res.text();
  return valueOf(c, res.status, res.status === 200 ? (JSON.parse(text) as Json) : {});
}

const dalle3 = fc.record({
  model: fc.constant('dall-e-3' as const),
  edit: fc.constant(false),
  n: fc.integer({ min: 1, max: 4 }),
  size: fc.constantFrom('1024x1024', '1792x1024', '1024x1792'),
  quality: fc.constantFrom('standard', 'hd'),
});
const dalle2 = fc.record({
  model: fc.constant('dall-e-2' as const),
  edit: fc.boolean(),
  n: fc.integer({ min: 1, max: 10 }),
  size: fc.constantFrom('256x256', '512x512', '1024x1024'),
  quality: fc.constant('standard'),
});
const gptImage = fc.record({
  model: fc.constant('gpt-image-1' as const),
  edit: fc.boolean(),
  n: fc.integer({ min: 1, max: 4 }),
  size: fc.constantFrom('1024x1024', '1536x1024', 'auto'),
  quality: fc.constantFrom('low', 'medium', 'high', 'auto'),
});

/** Issue 31: Σ value delivered ≤ Σ charged ≤ starting balance for images (generations and edits, per image and by tokens). */
describe.each(dialects.filter((d) => d !== 'mysql'))('images money property on %s', (dialect) => {
  const gw = useMoneyGateway<MockUpstream>(
    dialect,
    { redis: dialect === 'postgres', mock: startMockUpstream },
    async (g) => {
      await addChannel(g.root, {
        name: 'images-property',
        key: 'images-key',
        baseUrl: g.mock.url,
        models: 'dall-e-3,dall-e-2,gpt-image-1',
      });
      await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(IMAGE_PRICES) });
      await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'gpt-image-1': 2.5 }) });
      await g.root.call('PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify({ 'gpt-image-1': 4 }) });
    },
  );

  it('never delivers more than it charges, never charges more than the balance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300_000 }),
        fc.array(fc.oneof(dalle3, dalle2, gptImage), { minLength: 1, maxLength: 5 }),
        async (start, calls) => {
          const { userId, key } = await fundedKey(gw, start);
          const values = await Promise.all(calls.map((c) => imageCall(gw.base, key, c)));
          assertMoneyInvariant(
            start,
            values.reduce((n, v) => n + v, 0),
            await settledMoney(gw, userId),
          );
        },
      ),
      { numRuns: RUNS },
    );
  }, 240_000);
});
