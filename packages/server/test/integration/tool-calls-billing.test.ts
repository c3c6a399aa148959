import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { parseLogOther } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../support/local-server.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, lastLogOf, userQuota } from '../support/gateway.js';
import { SEARCH_OUTPUT_TOKENS, SEARCH_PROMPT_TOKENS, startSearchUpstream } from '../support/mock-search.js';

/**
 * Tools the provider runs on its side, priced per call (tool_price_setting.prices, new-api's defaults) through the
 * gateway: a search-preview chat model's search, Gemini's grounding with Google Search. (The Responses API's
 * web_search_call / file_search_call items are counted by its decoders: unit/responses-tool-calls.test.ts.)
 */
const QUOTA = 50_000_000;
const PREVIEW_MODEL = 'gpt-4o-search-preview';
const GEMINI_MODEL = 'gemini-grounded';
const TOKENS = SEARCH_PROMPT_TOKENS + SEARCH_OUTPUT_TOKENS;
/** $ per 1,000 calls × 500,000 quota per $ ÷ 1,000 = 500 × price quota per call. */
const perCall = (dollarsPer1k: number) => dollarsPer1k * 500;

describe.each(dialects.filter((d) => d === 'sqlite'))(
  "the provider's own tool calls, billed per call (%s)",
  (dialect) => {
    let search: LocalServer;
    const gw = useGateway(dialect, { user: 'tools-user', quota: QUOTA }, async (g) => {
      search = await startSearchUpstream();
      const ratios = { [PREVIEW_MODEL]: 0.5, [GEMINI_MODEL]: 0.5 };
      expect(
        (await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(ratios) })).body.success,
      ).toBe(true);
      await addChannel(g.root, { name: 'preview', key: 'pv', baseUrl: g.mock.url, models: PREVIEW_MODEL });
      await addChannel(g.root, { name: 'gem', key: 'gm', baseUrl: search.url, type: 24, models: GEMINI_MODEL });
    });
    afterAll(async () => search?.close());

    /** The tools' quota on top of the tokens' (a few quota at these ratios), charged and logged alike. */
    function expectBill(r: Awaited<ReturnType<typeof billed>>, calls: Record<string, number>, tools: number): void {
      expect(r.calls).toEqual(calls);
      expect(r.tools).toBe(tools);
      expect(r.spent).toBe(r.logged);
      expect(r.spent - tools).toBeGreaterThan(0);
      expect(r.spent - tools).toBeLessThan(TOKENS * 4);
    }

    const openai = () => new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
    /** The balance's change and the log row's tool fields of one call. */
    async function billed(model: string, run: () => Promise<unknown>) {
      const before = await userQuota(gw.t, gw.user.userId!);
      await run();
      const spent = before - (await userQuota(gw.t, gw.user.userId!));
      const row = await lastLogOf(gw.t, model);
      const other = parseLogOther(row.other);
      return { spent, logged: Number(row.quota), calls: other.tool_calls, tools: other.tool_quota };
    }

    it('a search-preview chat model is one web search per call; the operator’s price wins', async () => {
      const one = perCall(25);
      const ask = { model: PREVIEW_MODEL, messages: [{ role: 'user' as const, content: 'news' }] };
      expectBill(
        await billed(PREVIEW_MODEL, () => openai().chat.completions.create(ask)),
        {
          web_search_preview: 1,
        },
        one,
      );
      const prices = { 'web_search_preview:gpt-4o-search*': 30 };
      const saved = await gw.root.call('PUT', '/api/option/', {
        key: 'tool_price_setting.prices',
        value: JSON.stringify(prices),
      });
      expect(saved.body.success).toBe(true);
      expect((await billed(PREVIEW_MODEL, () => openai().chat.completions.create(ask))).tools).toBe(perCall(30));
    });

    it('Gemini grounded with Google Search: one google_search per answer, whole and streamed', async () => {
      const ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.base } });
      const ground = perCall(14);
      const ask = { model: GEMINI_MODEL, contents: 'what is tollway', config: { tools: [{ googleSearch: {} }] } };
      expectBill(await billed(GEMINI_MODEL, () => ai.models.generateContent(ask)), { google_search: 1 }, ground);
      const streamed = await billed(GEMINI_MODEL, async () => {
        for await (const chunk of await ai.models.generateContentStream(ask)) void chunk;
      });
      expectBill(streamed, { google_search: 1 }, ground);
    });
  },
);
