import type http from 'node:http';
import type { MockBehavior } from './mock-upstream.js';

type B = MockBehavior & { promptTokens: number; completionTokens: number; pieces: string[] };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Anthropic Messages (POST /v1/messages), plain and streamed, written from the public API reference. */
export async function answerAnthropic(res: http.ServerResponse, body: Record<string, unknown>, b: B): Promise<void> {
  const model = String(body.model ?? 'claude');
  const text = b.pieces.join('');
  const usage = {
    input_tokens: b.promptTokens,
    output_tokens: b.completionTokens,
    cache_read_input_tokens: b.cachedTokens ?? 0,
    cache_creation_input_tokens: b.cacheWriteTokens ?? 0,
    ...(b.webSearches ? { server_tool_use: { web_search_requests: b.webSearches } } : {}),
  };
  const thinking = b.thinking ? [{ type: 'thinking', thinking: b.thinking, signature: 'sig-mock' }] : [];
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_mock',
        type: 'message',
        role: 'assistant',
        model,
        content: [...thinking, { type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_mock',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  const index = thinking.length;
  if (b.thinking) {
    send('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    send('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'thinking_delta', thinking: b.thinking },
    });
    send('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: 'sig-mock' },
    });
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
  }
  send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
  for (const piece of b.pieces) {
    send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
  }
  send('content_block_stop', { type: 'content_block_stop', index });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: {
      output_tokens: b.completionTokens,
      ...(b.webSearches ? { server_tool_use: { web_search_requests: b.webSearches } } : {}),
    },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

/** Gemini generateContent and streamGenerateContent?alt=sse, written from the public API reference. */
export async function answerGemini(res: http.ServerResponse, path: string, b: B): Promise<void> {
  const stream = path.includes(':streamGenerateContent');
  const model = /models\/([^:]+):/.exec(path)?.[1] ?? 'gemini';
  const usageMetadata = {
    promptTokenCount: b.promptTokens,
    candidatesTokenCount: b.completionTokens,
    totalTokenCount: b.promptTokens + b.completionTokens,
    ...(b.cachedTokens ? { cachedContentTokenCount: b.cachedTokens } : {}),
  };
  const thought = b.thinking ? [{ text: b.thinking, thought: true }] : [];
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        candidates: [
          {
            content: { role: 'model', parts: [...thought, { text: b.pieces.join('') }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata,
        modelVersion: model,
        responseId: 'gem-mock',
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (thought.length)
    res.write(
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: thought }, index: 0 }], modelVersion: model, responseId: 'gem-mock' })}\r\n\r\n`,
    );
  b.pieces.forEach((piece, i) => {
    const last = i === b.pieces.length - 1;
    const chunk = {
      candidates: [
        { content: { role: 'model', parts: [{ text: piece }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
      ],
      ...(last ? { usageMetadata } : {}),
      modelVersion: model,
      responseId: 'gem-mock',
    };
    res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  });
  res.end();
}
