import http from 'node:http';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer';
import { computeQuota } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { addChannel } from '../support/gateway.js';
import { listenLocally } from '../support/local-server.js';
import {
  assertMoneyInvariant,
  fundedKey,
  MONEY_PRICE,
  settledMoney,
  useMoneyGateway,
} from '../support/money-property.js';
import { dialects } from '../support/databases.js';

/**
 * Issue 31's money invariant on the surfaces billed by their input alone (embeddings, moderations, rerank): whatever
 * the text (ASCII, CJK, emoji, rare characters that cost more tokens than their bytes suggest), the balance and the
 * concurrency, Σ value delivered ≤ Σ charged ≤ starting balance. The vendor's count of the input's tokens (o200k, as
 * the mock reports it) is what the caller received; it is priced at the model's price.
 */
type Json = Record<string, unknown>;

interface PromptVendor {
  url: string;
  close(): Promise<void>;
}

const texts = (input: unknown): string[] =>
  typeof input === 'string'
    ? [input]
    : Array.isArray(input)
      ? input.filter((x): x is string => typeof x === 'string')
      : [];

/** Embeddings and rerank report the o200k count of their input; moderations report none (the relay counts it). */
async function startPromptVendor(): Promise<PromptVendor> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Json;
      const path = (req.url ?? '').split('?')[0];
      let out: Json;
      if (path === '/v1/embeddings') {
        const inputs = texts(body.input);
        const tokens = inputs.reduce((n, t) => n + countTokens(t), 0);
        out = {
          object: 'list',
          data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })),
          model: body.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        };
      } else if (path === '/v1/moderations') {
        out = {
          id: 'modr-1',
          model: body.model,
          results: texts(body.input).map(() => ({ flagged: false, categories: {}, category_scores: {} })),
        };
      } else if (path === '/v1/rerank') {
        const docs = texts(body.documents);
        const tokens = countTokens(String(body.query)) + docs.reduce((n, t) => n + countTokens(t), 0);
        out = {
          model: body.model,
          results: docs.map((_, index) => ({ index, relevance_score: 1 / (index + 1) })),
          usage: { total_tokens: tokens },
        };
      } else {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no ${path}` } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  const { url, close } = await listenLocally(server);
  return { url, close };
}

type PromptSurface = 'embeddings' | 'moderations' | 'rerank';
const SURFACES: PromptSurface[] = ['embeddings', 'moderations', 'rerank'];
const modelOf = (s: PromptSurface) => `money-${s}`;

/** Text of every kind: cheap ASCII, CJK, emoji and rare code points (several tokens for few bytes). */
const textArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 200 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 }),
  fc.string({ unit: fc.constantFrom('你', '好', '𝔘', '🦊', 'ﷺ', '𒀀', '\u0301', 'ß'), minLength: 1, maxLength: 150 }),
  // A byte per token: the costliest text for its size.
  fc.string({ unit: fc.constantFrom('𒀀', '𒀁', '𒀂'), minLength: 100, maxLength: 400 }),
);

interface PromptCall {
  surface: PromptSurface;
  inputs: string[];
}

const callArb: fc.Arbitrary<PromptCall> = fc.record({
  surface: fc.constantFrom(...SURFACES),
  inputs: fc.array(textArb, { minLength: 1, maxLength: 4 }),
});

/** The vendor's token count of what the call sent (what a 200 delivered). */
const vendorTokens = (c: PromptCall): number =>
  c.inputs.reduce((n, t) => n + countTokens(t), 0) + (c.surface === 'rerank' ? countTokens('which?') : 0);

function bodyOf(c: PromptCall): Json {
  if (c.surface === 'rerank') return { model: modelOf('rerank'), query: 'which?', documents: c.inputs };
  return { model: modelOf(c.surface), input: c.inputs.length === 1 ? c.inputs[0] : c.inputs };
}

const runs = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);

describe.each(dialects.filter((d) => d === 'sqlite' || d === 'postgres'))('input-billed surfaces on %s', (dialect) => {
  const redis = dialect === 'postgres';
  const gw = useMoneyGateway<PromptVendor>(dialect, { redis, mock: startPromptVendor }, async (g) => {
    for (const s of SURFACES)
      await addChannel(g.root, { name: modelOf(s), key: 'k', baseUrl: g.mock.url, models: modelOf(s) });
    const ratios = Object.fromEntries(SURFACES.map((s) => [modelOf(s), MONEY_PRICE.modelRatio]));
    const res = await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(ratios) });
    expect(res.body.success).toBe(true);
  });

  it('Σ delivered ≤ Σ charged ≤ balance for random texts, balances and concurrency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4_000 }),
        fc.array(callArb, { minLength: 1, maxLength: 6 }),
        async (start, calls) => {
          const { userId, key } = await fundedKey(gw, start);
          const statuses = await Promise.all(
            calls.map(async (c) => {
              const res = await fetch(`${gw.base}/v1/${c.surface}`, {
                method: 'POST',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                body: JSON.stringify(bodyOf(c)),
              });
              await res.arrayBuffer();
              return res.status;
            }),
          );
          for (const s of statuses) expect([200, 403]).toContain(s);
          const delivered = calls.reduce(
            (v, c, i) =>
              v +
              (statuses[i] === 200
                ? computeQuota(MONEY_PRICE, { promptTokens: vendorTokens(c), completionTokens: 0 }, 500_000)
                : 0),
            0,
          );
          const money = await settledMoney(gw, userId);
          assertMoneyInvariant(start, delivered, money);
          expect(money.shortfall).toBe(0);
        },
      ),
      { numRuns: runs, endOnFailure: true },
    );
  }, 180_000);
});
