import { describe, expect, it } from 'vitest';
import { groundingToolCalls, responsesToolCalls } from '../../src/relay/ir/tool-calls.js';
import { openAIResponses } from '../../src/relay/providers/openai/responses.js';
import { decodeEvent } from '../../src/relay/providers/openai/responses-stream.js';
import { billedToolCalls, declaredToolCalls } from '../../src/relay/billing/tool-price.js';

/** A Responses object with two web searches and a file search the provider ran (OpenAI's documented items). */
const response = {
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  model: 'gpt-4o',
  output: [
    { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'a' } },
    { type: 'web_search_call', id: 'ws_2', status: 'completed', action: { type: 'search', query: 'b' } },
    { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['c'], results: null },
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'x' }],
    },
  ],
  usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17 },
};
const calls = { web_search_preview: 2, file_search: 1 };

describe("the provider's own tool calls", () => {
  it('counts Responses web_search_call and file_search_call items, whole and at response.completed', () => {
    expect(openAIResponses.responseToIR(response).usage.toolCalls).toEqual(calls);
    const state = { started: false, calls: new Map(), errored: false } as unknown as Parameters<typeof decodeEvent>[0];
    const events = decodeEvent(state, { data: JSON.stringify({ type: 'response.completed', response }) });
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ usage: { toolCalls: calls } });
    expect(responsesToolCalls([{ type: 'message' }])).toBeUndefined();
    expect(responsesToolCalls(undefined)).toBeUndefined();
  });

  it('counts one google_search for a grounded Gemini answer, none without queries', () => {
    expect(groundingToolCalls([{ groundingMetadata: { webSearchQueries: ['q'] } }])).toEqual({ google_search: 1 });
    expect(groundingToolCalls([{ groundingMetadata: { webSearchQueries: [] } }])).toBeUndefined();
    expect(groundingToolCalls([{}])).toBeUndefined();
  });

  it("bills a search-preview model's implied search only when the provider reported none", () => {
    expect(billedToolCalls('gpt-4o-search-preview', undefined)).toEqual({ web_search_preview: 1 });
    expect(billedToolCalls('gpt-4o-search-preview', { web_search_preview: 3 })).toEqual({ web_search_preview: 3 });
    expect(billedToolCalls('gpt-4o', undefined)).toBeUndefined();
  });
});

describe('the tool calls a request declares (held before the call)', () => {
  it("reads Anthropic's max_uses, Responses and Gemini search tools, and search-preview models", () => {
    expect(
      declaredToolCalls({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }, 'claude'),
    ).toEqual({ web_search: 3 });
    expect(declaredToolCalls({ tools: [{ type: 'web_search_20250305' }] }, 'claude')).toEqual({ web_search: 1 });
    expect(declaredToolCalls({ tools: [{ type: 'web_search_preview' }] }, 'gpt-4o')).toEqual({ web_search_preview: 1 });
    expect(declaredToolCalls({ tools: [{ googleSearch: {} }] }, 'gemini-2.5-pro')).toEqual({ google_search: 1 });
    expect(declaredToolCalls({}, 'gpt-4o-mini-search-preview')).toEqual({ web_search_preview: 1 });
    expect(declaredToolCalls({ tools: [{ type: 'function', name: 'f' }] }, 'gpt-4o')).toBeUndefined();
    expect(declaredToolCalls({ tools: [{ type: 'web_search_1', max_uses: 1e9 }] }, 'claude')).toEqual({
      web_search: 100,
    });
  });
});
