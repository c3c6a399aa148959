import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CachedChannel } from '../../../src/core/routing/channel-cache.js';
import { hunyuanChat } from '../../../src/relay/providers/tencent/convert.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRStreamEvent } from '../../../src/relay/ir/types.js';
import { compatibleTarget } from '../../../src/relay/providers/openai/vendors.js';
import { rerankUpstreamFor } from '../../../src/relay/providers/rerank-upstream.js';
import { tc3Sign } from '../../../src/relay/providers/tencent/tc3.js';

const text = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ir/hunyuan/${name}`, import.meta.url), 'utf8');
const channel = (type: number, other = ''): CachedChannel => ({ type, other, baseUrl: '' }) as unknown as CachedChannel;

describe('TC3-HMAC-SHA256 (Tencent Cloud API 3.0)', () => {
  it('matches the published example of the Signature v3 reference (CVM, 1551113065)', () => {
    const signed = tc3Sign({
      secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
      secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
      service: 'cvm',
      host: 'cvm.tencentcloudapi.com',
      contentType: 'application/json; charset=utf-8',
      payload: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
      timestamp: 1551113065,
    });
    expect(signed.hashedCanonicalRequest).toBe('5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031');
    expect(signed.signature).toBe('72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168');
    expect(signed.authorization).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });
});

describe('Tencent Hunyuan ChatCompletions', () => {
  it('writes an OpenAI request in PascalCase: system, images as Contents, tool calls and results, tools with JSON-text parameters, a named tool as CustomTool', () => {
    const body = hunyuanChat.requestFromIR(
      openAIChat.requestToIR({
        model: 'hunyuan-turbos-latest',
        temperature: 0.5,
        top_p: 0.8,
        messages: [
          { role: 'system', content: 'be brief' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'weather here?' },
              { type: 'image_url', image_url: { url: 'https://example.com/sz.jpg' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"深圳"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: '25°C' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        stream: true,
      }),
    );
    const tool = {
      Type: 'function',
      Function: {
        Name: 'get_weather',
        Description: 'weather',
        Parameters: '{"type":"object","properties":{"city":{"type":"string"}}}',
      },
    };
    expect(body).toEqual({
      Model: 'hunyuan-turbos-latest',
      Stream: true,
      Temperature: 0.5,
      TopP: 0.8,
      Messages: [
        { Role: 'system', Content: 'be brief' },
        {
          Role: 'user',
          Contents: [
            { Type: 'text', Text: 'weather here?' },
            { Type: 'image_url', ImageUrl: { Url: 'https://example.com/sz.jpg' } },
          ],
        },
        {
          Role: 'assistant',
          Content: '',
          ToolCalls: [{ Id: 'c1', Type: 'function', Function: { Name: 'get_weather', Arguments: '{"city":"深圳"}' } }],
        },
        { Role: 'tool', Content: '25°C', ToolCallId: 'c1' },
      ],
      Tools: [tool],
      ToolChoice: 'custom',
      CustomTool: tool,
    });
  });

  it('reads an answer with two tool calls and its usage; Response.Error is an error with its status', () => {
    expect(hunyuanChat.responseToIR(JSON.parse(text('response.json')))).toEqual({
      id: 'e2d3c1f4-0f3b-4b5a-9a6d-4f0a2d9b1c11',
      model: '',
      parts: [
        { type: 'tool_call', id: 'call_cs4a1', name: 'get_weather', arguments: '{"city":"深圳"}' },
        { type: 'tool_call', id: 'call_cs4a2', name: 'get_time', arguments: '{"city":"深圳"}' },
      ],
      stopReason: 'tool_calls',
      usage: { inputTokens: 213, outputTokens: 31, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
    const refused = {
      Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'bad signature' }, RequestId: 'r' },
    };
    expect(hunyuanChat.answerError?.(refused)).toEqual({
      status: 401,
      message: 'Tencent error AuthFailure.SignatureFailure: bad signature',
    });
    expect(
      hunyuanChat.answerError?.({ Response: { Error: { Code: 'LimitExceeded', Message: 'slow down' } } })?.status,
    ).toBe(429);
    expect(hunyuanChat.answerError?.(JSON.parse(text('response.json')))).toBeUndefined();
  });

  it.each([1, 10, 100_000])(
    'decodes the stream cut every %i characters; the running usage is read once, at the finish',
    (size) => {
      const state = hunyuanChat.newDecodeState();
      const splitter = new SseSplitter();
      const events: IRStreamEvent[] = [];
      const sse = text('stream.sse');
      for (let i = 0; i < sse.length; i += size)
        for (const ev of splitter.push(sse.slice(i, i + size))) events.push(...hunyuanChat.decodeEvent(state, ev));
      expect(events).toEqual(JSON.parse(text('stream.ir.json')));
    },
  );
});

describe('OpenAI-compatible vendor table', () => {
  it.each([
    [4, '/v1/chat/completions'],
    [17, '/compatible-mode/v1/chat/completions'],
    [26, '/api/paas/v4/chat/completions'],
    [38, '/v1/chat/completions'],
    [45, '/api/v3/chat/completions'],
    [46, '/v2/chat/completions'],
    [1, '/v1/chat/completions'],
  ])('type %i serves chat at %s with the key as Bearer', (type, path) => {
    expect(compatibleTarget(channel(type), 'k-1', '/v1/chat/completions')).toEqual({ path, key: 'k-1' });
  });

  it('Cloudflare: the account from `other`, else from an `account|token` key', () => {
    expect(compatibleTarget(channel(39, 'acc-1'), 'tok', '/v1/embeddings')).toEqual({
      path: '/client/v4/accounts/acc-1/ai/v1/embeddings',
      key: 'tok',
    });
    expect(compatibleTarget(channel(39), 'acc-2|tok', '/v1/chat/completions')).toEqual({
      path: '/client/v4/accounts/acc-2/ai/v1/chat/completions',
      key: 'tok',
    });
  });
});

describe('rerank upstreams', () => {
  const req = { model: 'm', query: 'q', documents: ['a', 'b', 'c'], topN: 2, returnDocuments: true };

  it('Jina: its own body; results with documents from the answer or the request; reported tokens', () => {
    const jina = rerankUpstreamFor(38);
    expect(jina.requestBody(req)).toEqual({
      model: 'm',
      query: 'q',
      documents: ['a', 'b', 'c'],
      top_n: 2,
      return_documents: true,
    });
    const answer = jina.answer(
      {
        results: [
          { index: 2, relevance_score: 0.7, document: { text: 'c' } },
          { index: 0, relevance_score: 0.1 },
        ],
        usage: { total_tokens: 9 },
      },
      req,
    );
    expect(answer).toEqual({
      body: {
        model: 'm',
        results: [
          { index: 2, relevance_score: 0.7, document: { text: 'c' } },
          { index: 0, relevance_score: 0.1, document: { text: 'a' } },
        ],
        usage: { prompt_tokens: 9, total_tokens: 9 },
      },
      promptTokens: 9,
    });
    expect(jina.target(channel(38), 'jk').url.href).toBe('https://api.jina.ai/v1/rerank');
  });

  it('Cohere: /v2/rerank without return_documents; no tokens reported (the caller counts)', () => {
    const cohere = rerankUpstreamFor(34);
    expect(cohere.requestBody(req)).toEqual({ model: 'm', query: 'q', documents: ['a', 'b', 'c'], top_n: 2 });
    expect(cohere.target(channel(34), 'ck')).toEqual({
      url: new URL('https://api.cohere.ai/v2/rerank'),
      headers: { 'content-type': 'application/json', authorization: 'Bearer ck' },
    });
    expect(
      cohere.answer(
        { results: [{ index: 1, relevance_score: 0.5 }], meta: { billed_units: { search_units: 1 } } },
        { ...req, returnDocuments: false },
      ),
    ).toEqual({
      body: { model: 'm', results: [{ index: 1, relevance_score: 0.5 }], usage: { prompt_tokens: 0, total_tokens: 0 } },
      promptTokens: undefined,
    });
  });
});
