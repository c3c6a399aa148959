import { describe, expect, it } from 'vitest';
import { fallbackReason, isContextLengthRefusal } from '../../src/relay/pipeline/fallback.js';

describe('model fallback reasons', () => {
  it('recognises the vendors’ context-length refusals, in their bodies or messages', () => {
    const refusals = [
      // OpenAI Chat Completions (code and message) and the Responses API.
      '{"error":{"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
      '{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}',
      // Anthropic.
      '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}',
      'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      // Gemini.
      '{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
      // Bedrock.
      'Input is too long for requested model.',
    ];
    for (const text of refusals) expect(isContextLengthRefusal(text), text).toBe(true);
    for (const text of [
      '{"error":{"message":"Unrecognized request argument supplied: foo","type":"invalid_request_error"}}',
      'max_tokens: must be at most 8192',
      'messages: text content blocks must be non-empty',
    ])
      expect(isContextLengthRefusal(text), text).toBe(false);
  });

  it('moves on 5xx, 429, timeouts and context-length 400s only', () => {
    expect(fallbackReason(0, false)).toBe('timeout');
    expect(fallbackReason(429, false)).toBe('429');
    expect(fallbackReason(500, false)).toBe('5xx');
    expect(fallbackReason(503, false)).toBe('5xx');
    expect(fallbackReason(400, true)).toBe('context_length');
    for (const status of [400, 401, 403, 404, 413, 422]) expect(fallbackReason(status, false)).toBeUndefined();
    // Only a 400 is read as a context-length refusal.
    expect(fallbackReason(401, true)).toBeUndefined();
  });
});
