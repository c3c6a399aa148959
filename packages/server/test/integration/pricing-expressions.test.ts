import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { parseLogOther } from '@tollway/shared';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, lastLogOf, userQuota } from '../support/gateway.js';

/**
 * new-api's expression billing (billing_setting.billing_mode / billing_expr), saved with the requests new-api's
 * console sends and billed exactly on plain and streamed calls of each protocol (docs/using/pricing.md).
 */

const QUOTA = 50_000_000;
const OPENAI_MODEL = 'tiered-openai';
const LONG_MODEL = 'tiered-long';
const CLAUDE_MODEL = 'tiered-claude';
const GEMINI_MODEL = 'tiered-gemini';
/** Priced by ratio 1 (a quota per token); its upstream runs 3 web searches for each answer. */
const TOOL_MODEL = 'searching-claude';
const SEARCH_KEY = 'search-key';
/** Its upstream reports 4 of the 12 prompt tokens and 3 of the 5 completion tokens as audio. */
const AUDIO_MODEL = 'audio-expr';
const AUDIO_KEY = 'audio-key';
const AUDIO_EXPR = 'p * 4 + c * 16 + ai * 40 + ao * 80';
/** DeepSeek-style off-peak prices: half price from 00:30 to 08:30 Beijing time (the console's time rule). */
const OFFPEAK_MODEL = 'offpeak-model';
const OFFPEAK_EXPR =
  '(hour("Asia/Shanghai") * 60 + minute("Asia/Shanghai") >= 30 && hour("Asia/Shanghai") * 60 + minute("Asia/Shanghai") < 510) ? tier("offpeak", p * 2 + c * 8) : tier("standard", p * 4 + c * 16)';
const SEARCHES = 3;
/** The mock answers 12 prompt and 5 completion tokens; the long model's key 30 prompt tokens, 10 read from cache. */
const LONG_KEY = 'long-key';
/**
 * As new-api's console writes a tiered price with one request rule: `(base) * (rule ? multiplier : 1)`. In dollars
 * per million tokens: up to 20 prompt tokens $4 in / $16 out, above them $8 / $24 with cache reads at $2.
 */
const EXPR =
  '(len <= 20 ? tier("short", p * 4 + c * 16 + cr * 1) : tier("long", p * 8 + c * 24 + cr * 2)) * (param("service_tier") == "priority" ? 2 : 1)';
/** (12 × 4 + 5 × 16) = 128 $/1M·tokens → 128 / 10^6 × 500,000 = 64 quota. */
const SHORT_QUOTA = 64;
/** len 30: (20 × 8 + 5 × 24 + 10 × 2) = 300 → 150 quota. */
const LONG_QUOTA = 150;

/** The option requests new-api's price editor sends on save (its useModelPricingEditorState): pretty JSON maps. */
const consoleSave = (key: string, value: unknown) => ({ key, value: JSON.stringify(value, null, 2) });

describe.each(dialects)('billing expressions on %s', (dialect) => {
  const models = [OPENAI_MODEL, LONG_MODEL, CLAUDE_MODEL, GEMINI_MODEL];
  const gw = useGateway(dialect, { user: 'expr-user', quota: QUOTA }, async (g) => {
    const saves = [
      consoleSave('ModelRatio', { ...Object.fromEntries(models.map((m) => [m, 1])), [TOOL_MODEL]: 1 }),
      consoleSave('billing_setting.billing_mode', {
        ...Object.fromEntries(models.map((m) => [m, 'tiered_expr'])),
        [AUDIO_MODEL]: 'tiered_expr',
        [OFFPEAK_MODEL]: 'tiered_expr',
      }),
      consoleSave('billing_setting.billing_expr', {
        ...Object.fromEntries(models.map((m) => [m, EXPR])),
        [AUDIO_MODEL]: AUDIO_EXPR,
        [OFFPEAK_MODEL]: OFFPEAK_EXPR,
      }),
    ];
    for (const body of saves) {
      const res = await g.root.call('PUT', '/api/option/', body);
      if (!res.body.success) throw new Error(`${body.key}: ${res.body.message}`);
    }
    g.mock.behaviors.set(LONG_KEY, { promptTokens: 30, cachedTokens: 10 });
    g.mock.behaviors.set(SEARCH_KEY, { webSearches: SEARCHES });
    g.mock.behaviors.set(AUDIO_KEY, { promptDetails: { audio_tokens: 4 }, completionDetails: { audio_tokens: 3 } });
    await addChannel(g.root, { name: 'audio', key: AUDIO_KEY, baseUrl: g.mock.url, models: AUDIO_MODEL });
    await addChannel(g.root, { name: 'offpeak', key: 'offpeak-key', baseUrl: g.mock.url, models: OFFPEAK_MODEL });
    await addChannel(g.root, { name: 'search', key: SEARCH_KEY, baseUrl: g.mock.url, type: 14, models: TOOL_MODEL });
    await addChannel(g.root, { name: 'oa', key: 'oa-key', baseUrl: g.mock.url, models: OPENAI_MODEL });
    await addChannel(g.root, { name: 'long', key: LONG_KEY, baseUrl: g.mock.url, models: LONG_MODEL });
    await addChannel(g.root, { name: 'an', key: 'an-key', baseUrl: g.mock.url, type: 14, models: CLAUDE_MODEL });
    await addChannel(g.root, { name: 'ge', key: 'ge-key', baseUrl: g.mock.url, type: 24, models: GEMINI_MODEL });
  });

  const openai = () => new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
  const userId = () => gw.user.userId!;

  /** Runs a call; the balance's change, the log row's quota and its pricing fields. */
  async function billed(model: string, run: () => Promise<unknown>) {
    const before = await userQuota(gw.t, userId());
    await run();
    const spent = before - (await userQuota(gw.t, userId()));
    const row = await lastLogOf(gw.t, model);
    const other = parseLogOther(row.other);
    return {
      spent,
      logged: Number(row.quota),
      mode: other.billing_mode,
      tier: other.matched_tier,
      expr: Buffer.from(other.expr_b64 ?? '', 'base64').toString(),
    };
  }

  it('keeps what the console saved: the maps read back as written, the tool prices too', async () => {
    const tools = consoleSave('tool_price_setting.prices', { web_search: 10, 'web_search_preview:gpt-4o*': 25 });
    expect((await gw.root.call('PUT', '/api/option/', tools)).body.success).toBe(true);
    const res = await gw.root.call('GET', '/api/option/');
    const options = new Map((res.body.data as { key: string; value: string }[]).map((o) => [o.key, o.value]));
    expect(JSON.parse(options.get('billing_setting.billing_expr')!)).toEqual({
      ...Object.fromEntries(models.map((m) => [m, EXPR])),
      [AUDIO_MODEL]: AUDIO_EXPR,
      [OFFPEAK_MODEL]: OFFPEAK_EXPR,
    });
    expect(JSON.parse(options.get('billing_setting.billing_mode')!)[OPENAI_MODEL]).toBe('tiered_expr');
    expect(JSON.parse(options.get('tool_price_setting.prices')!)).toEqual({
      web_search: 10,
      'web_search_preview:gpt-4o*': 25,
    });
  });

  it('shows the expression on the pricing page as new-api does (billing_mode and billing_expr per model)', async () => {
    const res = await gw.root.call('GET', '/api/pricing');
    const rows = res.body.data as { model_name: string; billing_mode?: string; billing_expr?: string }[];
    const row = rows.find((r) => r.model_name === OPENAI_MODEL)!;
    expect(row).toMatchObject({ billing_mode: 'tiered_expr', billing_expr: EXPR });
  });

  it('refuses an expression that does not parse or fails, naming the model and the fault, and keeps the old one', async () => {
    for (const [expr, fault] of [
      ['p * 2 +', 'ends too early'],
      ['p * bogus', 'unknown variable bogus'],
      ['p * 2 - c * 9', 'negative'],
      ['p * (hour("Nowhere/City") < 7 ? 1 : 2)', 'unknown time zone'],
    ]) {
      const res = await gw.root.call(
        'PUT',
        '/api/option/',
        consoleSave('billing_setting.billing_expr', { [OPENAI_MODEL]: expr }),
      );
      expect(res.body.success).toBe(false);
      expect(res.body.message).toContain(OPENAI_MODEL);
      expect(res.body.message).toContain(fault);
      expect((res.body as { code?: string }).code).toBe('billing_expr_invalid');
    }
    const mode = await gw.root.call(
      'PUT',
      '/api/option/',
      consoleSave('billing_setting.billing_mode', { [OPENAI_MODEL]: 'tiered' }),
    );
    expect(mode.body.success).toBe(false);
    const res = await gw.root.call('GET', '/api/option/');
    const saved = (res.body.data as { key: string; value: string }[]).find(
      (o) => o.key === 'billing_setting.billing_expr',
    )!;
    expect(JSON.parse(saved.value)[OPENAI_MODEL]).toBe(EXPR);
  });

  it('bills OpenAI chat calls, plain and streamed, at the tier and request rule that apply', async () => {
    const plain = await billed(OPENAI_MODEL, () =>
      openai().chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(plain).toEqual({ spent: SHORT_QUOTA, logged: SHORT_QUOTA, mode: 'tiered_expr', tier: 'short', expr: EXPR });
    const streamed = await billed(OPENAI_MODEL, async () => {
      const stream = await openai().chat.completions.create({
        model: OPENAI_MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      for await (const chunk of stream) void chunk;
    });
    expect(streamed).toMatchObject({ spent: SHORT_QUOTA, logged: SHORT_QUOTA, tier: 'short' });
    // service_tier "priority" doubles the price (the rule reads the request body).
    const priority = await billed(OPENAI_MODEL, () =>
      openai().chat.completions.create({
        model: OPENAI_MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        service_tier: 'priority',
      }),
    );
    expect(priority).toMatchObject({ spent: 2 * SHORT_QUOTA, logged: 2 * SHORT_QUOTA });
    // Above 20 prompt tokens the long tier prices cache reads on their own.
    const long = await billed(LONG_MODEL, () =>
      openai().chat.completions.create({ model: LONG_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(long).toMatchObject({ spent: LONG_QUOTA, logged: LONG_QUOTA, tier: 'long' });
  });

  it('bills Claude and Gemini protocol calls, plain and streamed, by the same expression', async () => {
    const claude = new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0 });
    const ask = { model: CLAUDE_MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
    expect(await billed(CLAUDE_MODEL, () => claude.messages.create(ask))).toMatchObject({
      spent: SHORT_QUOTA,
      logged: SHORT_QUOTA,
      tier: 'short',
    });
    const claudeStream = await billed(CLAUDE_MODEL, async () => {
      for await (const ev of await claude.messages.create({ ...ask, stream: true })) void ev;
    });
    expect(claudeStream).toMatchObject({ spent: SHORT_QUOTA, logged: SHORT_QUOTA });

    const gemini = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.base } });
    const plain = await billed(GEMINI_MODEL, () =>
      gemini.models.generateContent({ model: GEMINI_MODEL, contents: 'hi' }),
    );
    expect(plain).toMatchObject({ spent: SHORT_QUOTA, logged: SHORT_QUOTA, tier: 'short' });
    const streamed = await billed(GEMINI_MODEL, async () => {
      for await (const chunk of await gemini.models.generateContentStream({ model: GEMINI_MODEL, contents: 'hi' }))
        void chunk;
    });
    expect(streamed).toMatchObject({ spent: SHORT_QUOTA, logged: SHORT_QUOTA });
  });

  it('meters a stream against what a small balance holds at the expression price', async () => {
    // 1,000 quota left: the hold affords far fewer than the uncapped output; the call is still served and billed exactly.
    await gw.t.database.db.kysely.updateTable('users').set({ quota: 1000 }).where('id', '=', userId()).execute();
    await gw.t.runtime.ctx.relay.ledger.refresh('users', userId());
    const res = await billed(OPENAI_MODEL, () =>
      openai().chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(res).toMatchObject({ spent: SHORT_QUOTA, logged: SHORT_QUOTA });
    const sent = gw.mock.requests.at(-1)!.body;
    // The cap sent upstream is what 1,000 quota pays for: at most 1,000 / ($16 per 1M × 0.5) = 125 output tokens at
    // the cheapest tier (the hold plans on the prompt's ceiling, which may reach the dearer tier), never uncapped.
    const cap = Number(sent.max_tokens ?? sent.max_completion_tokens);
    expect(cap).toBeGreaterThanOrEqual(1);
    expect(cap).toBeLessThanOrEqual(125);
    await gw.t.database.db.kysely.updateTable('users').set({ quota: QUOTA }).where('id', '=', userId()).execute();
    await gw.t.runtime.ctx.relay.ledger.refresh('users', userId());
  });

  it('prices the audio tokens the provider reports apart when the expression names them (ai, ao)', async () => {
    // 12 prompt tokens of which 4 audio, 5 completion of which 3 audio: p 8 × $4 + ai 4 × $40 + c 2 × $16 +
    // ao 3 × $80 = 32 + 160 + 32 + 240 = 464 $/1M·tokens → 232 quota.
    const ask = { model: AUDIO_MODEL, messages: [{ role: 'user' as const, content: 'say it' }] };
    expect(await billed(AUDIO_MODEL, () => openai().chat.completions.create(ask))).toMatchObject({
      spent: 232,
      logged: 232,
    });
  });

  it("prices by the time of day in the zone the rule names, at the call's start", async () => {
    // 12 prompt + 5 completion tokens: off-peak (12 × 2 + 5 × 8) = 64 $/1M → 32 quota; standard 128 → 64 quota.
    const ask = { model: OFFPEAK_MODEL, messages: [{ role: 'user' as const, content: 'when' }] };
    const at = async (iso: string) => {
      vi.useFakeTimers({ toFake: ['Date'], now: new Date(iso) });
      try {
        return await billed(OFFPEAK_MODEL, () => openai().chat.completions.create(ask));
      } finally {
        vi.useRealTimers();
      }
    };
    // 01:00 and 08:29 in Shanghai are off-peak; 00:29, 08:30 and noon are not.
    expect(await at('2026-12-04T17:00:00Z')).toMatchObject({ spent: 32, logged: 32, tier: 'offpeak' });
    expect(await at('2026-12-05T00:29:00Z')).toMatchObject({ spent: 32, tier: 'offpeak' });
    expect(await at('2026-12-04T16:29:00Z')).toMatchObject({ spent: 64, tier: 'standard' });
    expect(await at('2026-12-05T00:30:00Z')).toMatchObject({ spent: 64, tier: 'standard' });
    expect(await at('2026-12-05T04:00:00Z')).toMatchObject({ spent: 64, logged: 64, tier: 'standard' });
  });

  it("charges the provider's web searches per call at the tool price, new-api's default or the operator's", async () => {
    const claude = new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0 });
    const ask = { model: TOOL_MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'search' }] };
    // Tokens: (12 + 5) × ratio 1 = 17 quota. Searches: 3 × $10 per 1,000 (new-api's built-in web_search price) =
    // $0.03 = 15,000 quota.
    const toolRow = async (run: () => Promise<unknown>) => {
      const before = await userQuota(gw.t, userId());
      await run();
      const spent = before - (await userQuota(gw.t, userId()));
      const row = await lastLogOf(gw.t, TOOL_MODEL);
      const other = parseLogOther(row.other);
      return { spent, logged: Number(row.quota), calls: other.tool_calls, tools: other.tool_quota };
    };
    expect(await toolRow(() => claude.messages.create(ask))).toEqual({
      spent: 15_017,
      logged: 15_017,
      calls: { web_search: SEARCHES },
      tools: 15_000,
    });
    const stream = await toolRow(async () => {
      for await (const ev of await claude.messages.create({ ...ask, stream: true })) void ev;
    });
    expect(stream).toMatchObject({ spent: 15_017, logged: 15_017, tools: 15_000 });
    // The operator's price for the tool, then a longer prefix for this model: 3 × $4 per 1,000 = 6,000 quota.
    const prices = { web_search: 5, 'web_search:searching*': 4.5, 'web_search:searching-cl*': 4 };
    expect(
      (await gw.root.call('PUT', '/api/option/', consoleSave('tool_price_setting.prices', prices))).body.success,
    ).toBe(true);
    expect(await toolRow(() => claude.messages.create(ask))).toMatchObject({ spent: 6_017, tools: 6_000 });
  });
});
