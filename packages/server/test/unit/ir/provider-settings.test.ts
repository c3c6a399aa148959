import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../../src/relay/providers/anthropic/convert.js';
import { geminiGenerate } from '../../../src/relay/providers/gemini/convert.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import {
  applyClaudeSettings,
  claudeDefaultMaxTokensOf,
  type ClaudeSettings,
} from '../../../src/relay/providers/anthropic/settings.js';
import {
  applyGeminiSettings,
  geminiApiVersion,
  geminiBudgetRange,
  geminiSafetySettings,
  geminiThinkingSuffix,
  type GeminiSettings,
} from '../../../src/relay/providers/gemini/settings.js';
import { thinkingBaseModel } from '../../../src/relay/billing/price.js';

/** The defaults of packages/shared/src/options.ts, as the relay reads them. */
const claude = (over: Partial<ClaudeSettings> = {}): ClaudeSettings => ({
  headers: {},
  defaultMaxTokens: { default: 8192 },
  thinkingAdapter: true,
  budgetShare: 0.8,
  ...over,
});
const gemini = (over: Partial<GeminiSettings> = {}): GeminiSettings => ({
  safety: { default: 'OFF' },
  versions: { default: 'v1beta' },
  thinkingAdapter: true,
  budgetShare: 0.6,
  budgetModels: ['gemini-2.5-flash', 'gemini-2.5-pro'],
  ...over,
});
const msg = { role: 'user', content: 'hi' };

describe('Claude settings on an Anthropic Messages body', () => {
  it('-thinking: suffix stripped, budget_tokens = max_tokens × share, temperature 1, top_p/top_k removed', () => {
    const r = applyClaudeSettings(
      {
        model: 'claude-3-7-sonnet-20250219-thinking',
        max_tokens: 10000,
        temperature: 0.2,
        top_p: 0.5,
        top_k: 5,
        messages: [msg],
      },
      'claude-3-7-sonnet-20250219-thinking',
      claude(),
    );
    expect(r.model).toBe('claude-3-7-sonnet-20250219');
    expect(r.body).toEqual({
      model: 'claude-3-7-sonnet-20250219',
      max_tokens: 10000,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 8000 },
      messages: [msg],
    });
  });

  it('-thinking with a small max_tokens raises it to 1280 so the budget reaches the 1024 minimum; the share is configurable', () => {
    expect(
      applyClaudeSettings({ model: 'c-thinking', max_tokens: 100, messages: [msg] }, 'c-thinking', claude()).body,
    ).toMatchObject({
      max_tokens: 1280,
      thinking: { budget_tokens: 1024 },
    });
    // A share of 1 would make budget = max_tokens: kept one below, as Anthropic requires budget_tokens < max_tokens.
    expect(
      applyClaudeSettings(
        { model: 'c-thinking', max_tokens: 4000, messages: [msg] },
        'c-thinking',
        claude({ budgetShare: 1 }),
      ).body.thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 3999,
    });
    expect(
      applyClaudeSettings(
        { model: 'c-thinking', max_tokens: 4000, messages: [msg] },
        'c-thinking',
        claude({ budgetShare: 0.5 }),
      ).body.thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 2000,
    });
  });

  it('-thinking keeps a thinking budget the request set itself', () => {
    const r = applyClaudeSettings(
      { model: 'c-thinking', max_tokens: 9000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [msg] },
      'c-thinking',
      claude(),
    );
    expect(r.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(r.body.max_tokens).toBe(9000);
  });

  it('-thinking relaxes a forced tool_choice to auto (Anthropic allows only auto or none with thinking); a request thinking on its own keeps it', () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
    expect(
      applyClaudeSettings(
        {
          model: 'c-thinking',
          max_tokens: 4000,
          tools,
          tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
          messages: [msg],
        },
        'c-thinking',
        claude(),
      ).body.tool_choice,
    ).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(
      applyClaudeSettings(
        { model: 'c-thinking', max_tokens: 4000, tools, tool_choice: { type: 'any' }, messages: [msg] },
        'c-thinking',
        claude(),
      ).body.tool_choice,
    ).toEqual({
      type: 'auto',
    });
    expect(
      applyClaudeSettings(
        { model: 'c-thinking', max_tokens: 4000, tools, tool_choice: { type: 'none' }, messages: [msg] },
        'c-thinking',
        claude(),
      ).body.tool_choice,
    ).toEqual({
      type: 'none',
    });
    const own = {
      model: 'c-thinking',
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      tools,
      tool_choice: { type: 'any' },
      messages: [msg],
    };
    expect(applyClaudeSettings(own, 'c-thinking', claude()).body.tool_choice).toEqual({ type: 'any' });
  });

  it('adapter off: the model is sent as named and no thinking is added', () => {
    const r = applyClaudeSettings(
      { model: 'c-thinking', max_tokens: 9000, temperature: 0.3, messages: [msg] },
      'c-thinking',
      claude({ thinkingAdapter: false }),
    );
    expect(r.model).toBe('c-thinking');
    expect(r.body).toEqual({ model: 'c-thinking', max_tokens: 9000, temperature: 0.3, messages: [msg] });
  });

  it('default max_tokens per model (suffixed name, then base name, then default), only when the request has none', () => {
    const s = claude({ defaultMaxTokens: { default: 4096, 'claude-opus-4': 32000, 'claude-opus-4-thinking': 64000 } });
    expect(applyClaudeSettings({ model: 'claude-haiku', messages: [msg] }, 'claude-haiku', s).body.max_tokens).toBe(
      4096,
    );
    expect(applyClaudeSettings({ model: 'claude-opus-4', messages: [msg] }, 'claude-opus-4', s).body.max_tokens).toBe(
      32000,
    );
    expect(
      applyClaudeSettings({ model: 'claude-opus-4-thinking', messages: [msg] }, 'claude-opus-4-thinking', s).body,
    ).toMatchObject({
      model: 'claude-opus-4',
      max_tokens: 64000,
      thinking: { budget_tokens: 51200 },
    });
    expect(
      applyClaudeSettings({ model: 'claude-opus-4', max_tokens: 10, messages: [msg] }, 'claude-opus-4', s).body
        .max_tokens,
    ).toBe(10);
    expect(claudeDefaultMaxTokensOf({ defaultMaxTokens: {} }, 'x')).toBe(8192);
  });

  it('per-model headers: values joined, names lower-cased; the suffixed name wins over the base name', () => {
    const s = claude({
      headers: {
        'claude-sonnet-4': { 'Anthropic-Beta': ['output-128k-2025-02-19', 'token-efficient-tools-2025-02-19'] },
        'claude-sonnet-4-thinking': { 'anthropic-beta': ['interleaved-thinking-2025-05-14'] },
      },
    });
    expect(applyClaudeSettings({ model: 'claude-sonnet-4', messages: [msg] }, 'claude-sonnet-4', s).headers).toEqual({
      'anthropic-beta': 'output-128k-2025-02-19,token-efficient-tools-2025-02-19',
    });
    expect(
      applyClaudeSettings({ model: 'claude-sonnet-4-thinking', messages: [msg] }, 'claude-sonnet-4-thinking', s)
        .headers,
    ).toEqual({
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
    });
    expect(applyClaudeSettings({ model: 'other', messages: [msg] }, 'other', s).headers).toEqual({});
  });

  it('a body without a model (the model is in the URL, as on Vertex) gets none added', () => {
    expect(applyClaudeSettings({ max_tokens: 5000, messages: [msg] }, 'c-thinking', claude()).body).toEqual({
      max_tokens: 5000,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 4000 },
      messages: [msg],
    });
  });

  it('an OpenAI request for a -thinking model converts, then gets thinking (the whole OpenAI → Claude path)', () => {
    const body = anthropicMessages.requestFromIR({
      ...openAIChat.requestToIR({ model: 'c-thinking', max_tokens: 2000, temperature: 0.1, messages: [msg] }),
    });
    expect(applyClaudeSettings(body, 'c-thinking', claude()).body).toEqual({
      model: 'c',
      max_tokens: 2000,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 1600 },
      messages: [msg],
    });
  });
});

describe('Gemini settings on a generateContent body', () => {
  const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];

  it('safetySettings: every category with its own threshold or the default; a request that sets its own keeps them', () => {
    const s = gemini({ safety: { default: 'BLOCK_NONE', HARM_CATEGORY_HATE_SPEECH: 'BLOCK_LOW_AND_ABOVE' } });
    expect(geminiSafetySettings(s)).toEqual([
      { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' },
      { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_LOW_AND_ABOVE' },
      { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', threshold: 'BLOCK_NONE' },
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'BLOCK_NONE' },
      { category: 'HARM_CATEGORY_CIVIC_INTEGRITY', threshold: 'BLOCK_NONE' },
    ]);
    expect(applyGeminiSettings({ contents }, 'gemini-2.0-flash', s).body.safetySettings).toEqual(
      geminiSafetySettings(s),
    );
    const own = [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }];
    expect(applyGeminiSettings({ contents, safetySettings: own }, 'gemini-2.0-flash', s).body.safetySettings).toBe(own);
    expect(geminiSafetySettings(gemini({ safety: {} }))[0]!.threshold).toBe('OFF');
  });

  it('API version per model, else the default', () => {
    const s = gemini({ versions: { default: 'v1beta', 'gemini-1.5-pro': 'v1' } });
    expect(geminiApiVersion(s, 'gemini-1.5-pro')).toBe('v1');
    expect(geminiApiVersion(s, 'gemini-2.5-flash')).toBe('v1beta');
    expect(geminiApiVersion(gemini({ versions: {} }), 'x')).toBe('v1beta');
  });

  it('suffixes: -thinking, -nothinking, -thinking-<n>; nothing stripped with the adapter off', () => {
    expect(geminiThinkingSuffix('gemini-2.5-flash-thinking', gemini())).toEqual({
      model: 'gemini-2.5-flash',
      ask: { mode: 'thinking' },
    });
    expect(geminiThinkingSuffix('gemini-2.5-flash-nothinking', gemini())).toEqual({
      model: 'gemini-2.5-flash',
      ask: { mode: 'nothinking' },
    });
    expect(geminiThinkingSuffix('gemini-2.5-flash-thinking-2048', gemini())).toEqual({
      model: 'gemini-2.5-flash',
      ask: { mode: 'budget', budget: 2048 },
    });
    expect(geminiThinkingSuffix('gemini-2.5-flash', gemini())).toEqual({ model: 'gemini-2.5-flash' });
    expect(geminiThinkingSuffix('gemini-2.5-flash-thinking', gemini({ thinkingAdapter: false }))).toEqual({
      model: 'gemini-2.5-flash-thinking',
    });
  });

  it('-thinking: includeThoughts, budget = maxOutputTokens × share clamped to the model range; no maxOutputTokens → thoughts only', () => {
    const r = applyGeminiSettings(
      { contents, generationConfig: { maxOutputTokens: 10000, temperature: 0.4 } },
      'gemini-2.5-flash-thinking',
      gemini(),
    );
    expect(r.model).toBe('gemini-2.5-flash');
    expect(r.body.generationConfig).toEqual({
      maxOutputTokens: 10000,
      temperature: 0.4,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 6000 },
    });
    expect(
      applyGeminiSettings(
        { contents, generationConfig: { maxOutputTokens: 100000 } },
        'gemini-2.5-flash-thinking',
        gemini(),
      ).body.generationConfig.thinkingConfig.thinkingBudget,
    ).toBe(24576);
    expect(
      applyGeminiSettings({ contents, generationConfig: { maxOutputTokens: 100 } }, 'gemini-2.5-pro-thinking', gemini())
        .body.generationConfig.thinkingConfig.thinkingBudget,
    ).toBe(128);
    expect(applyGeminiSettings({ contents }, 'gemini-2.5-flash-thinking', gemini()).body.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true },
    });
    // snake_case as in the docs' curl examples is read too
    expect(
      applyGeminiSettings(
        { contents, generation_config: { max_output_tokens: 1000 } },
        'gemini-2.5-flash-thinking',
        gemini(),
      ).body,
    ).toMatchObject({
      generationConfig: { max_output_tokens: 1000, thinkingConfig: { thinkingBudget: 600 } },
    });
  });

  it('-thinking-<n> sets the budget (clamped); -nothinking turns thinking off where the model allows it', () => {
    expect(applyGeminiSettings({ contents }, 'gemini-2.5-flash-thinking-2048', gemini()).body.generationConfig).toEqual(
      {
        thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
      },
    );
    expect(
      applyGeminiSettings({ contents }, 'gemini-2.5-flash-lite-thinking-100', gemini()).body.generationConfig
        .thinkingConfig.thinkingBudget,
    ).toBe(512);
    expect(
      applyGeminiSettings(
        { contents, generationConfig: { thinkingConfig: { includeThoughts: true } } },
        'gemini-2.5-flash-nothinking',
        gemini(),
      ).body.generationConfig,
    ).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
    // 2.5 Pro cannot turn thinking off: the request is left as it was
    const pro = applyGeminiSettings({ contents }, 'gemini-2.5-pro-nothinking', gemini());
    expect(pro.model).toBe('gemini-2.5-pro');
    expect(pro.body.generationConfig).toBeUndefined();
    expect(geminiBudgetRange('gemini-2.5-pro')).toEqual({ min: 128, max: 32768, canDisable: false });
  });

  it('budgets only for models in gemini.models_supported_thinking_budget; others get includeThoughts only', () => {
    expect(
      applyGeminiSettings(
        { contents, generationConfig: { maxOutputTokens: 1000 } },
        'gemini-2.0-flash-thinking',
        gemini(),
      ).body.generationConfig,
    ).toEqual({
      maxOutputTokens: 1000,
      thinkingConfig: { includeThoughts: true },
    });
    expect(
      applyGeminiSettings({ contents }, 'gemini-2.0-flash-nothinking', gemini()).body.generationConfig,
    ).toBeUndefined();
  });

  it('OpenAI reasoning_effort → thinkingBudget (20/50/80 % of the largest budget) only with the adapter on', () => {
    const body = geminiGenerate.requestFromIR({
      ...openAIChat.requestToIR({ model: 'gemini-2.5-flash', reasoning_effort: 'medium', messages: [msg] }),
    });
    expect(
      applyGeminiSettings(body, 'gemini-2.5-flash', gemini(), 'medium').body.generationConfig.thinkingConfig,
    ).toEqual({ includeThoughts: true, thinkingBudget: 12288 });
    expect(applyGeminiSettings(body, 'gemini-2.5-pro', gemini(), 'high').body.generationConfig.thinkingConfig).toEqual({
      includeThoughts: true,
      thinkingBudget: 26214,
    });
    expect(applyGeminiSettings(body, 'gemini-2.5-flash', gemini(), 'low').body.generationConfig.thinkingConfig).toEqual(
      { includeThoughts: true, thinkingBudget: 4915 },
    );
    expect(
      applyGeminiSettings(body, 'gemini-2.5-flash', gemini(), 'minimal').body.generationConfig.thinkingConfig,
    ).toEqual({ thinkingBudget: 0 });
    // adapter off: the IR's own effort mapping stays
    expect(
      applyGeminiSettings(body, 'gemini-2.5-flash', gemini({ thinkingAdapter: false }), 'medium').body.generationConfig,
    ).toEqual(body.generationConfig);
  });

  it('thoughts in a Gemini answer reach OpenAI callers as reasoning_content and Anthropic callers as thinking blocks', () => {
    const answer = {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Let me think.', thought: true }, { text: '42' }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, thoughtsTokenCount: 7, totalTokenCount: 13 },
    };
    const ir = geminiGenerate.responseToIR(answer);
    expect(openAIChat.responseFromIR(ir, 'gemini-2.5-flash-thinking')).toMatchObject({
      choices: [{ message: { content: '42', reasoning_content: 'Let me think.' } }],
      usage: { completion_tokens: 8, completion_tokens_details: { reasoning_tokens: 7 } },
    });
    expect(anthropicMessages.responseFromIR(ir, 'gemini-2.5-flash-thinking')).toMatchObject({
      content: [
        { type: 'thinking', thinking: 'Let me think.' },
        { type: 'text', text: '42' },
      ],
      usage: { output_tokens: 8 },
    });
  });
});

describe('billing name of a thinking-suffixed model', () => {
  it('strips -thinking, -nothinking and -thinking-<n>', () => {
    expect(thinkingBaseModel('claude-3-7-sonnet-20250219-thinking')).toBe('claude-3-7-sonnet-20250219');
    expect(thinkingBaseModel('gemini-2.5-flash-nothinking')).toBe('gemini-2.5-flash');
    expect(thinkingBaseModel('gemini-2.5-flash-thinking-512')).toBe('gemini-2.5-flash');
    expect(thinkingBaseModel('gpt-4o')).toBe('gpt-4o');
  });
});
