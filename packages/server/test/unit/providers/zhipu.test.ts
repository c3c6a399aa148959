import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { chatGLMChat, chatGLMContent } from '../../../src/relay/providers/zhipu/convert.js';
import { zhipuProvider } from '../../../src/relay/providers/zhipu/descriptor.js';
import { chatGLMToken, signChatGLMToken } from '../../../src/relay/providers/zhipu/jwt.js';
import { ChatGLMFramer } from '../../../src/relay/providers/zhipu/stream.js';
import { describeProviderContract } from '../../support/provider-contract.js';
import { startMockZhipuV3 } from '../../support/mock-zhipu-v3.js';

const KEYS = { 'glm-id': 'glm-secret', 'glm-refused': 'refused-secret' };

/**
 * Zhipu ChatGLM v3 against a mock that verifies the JWT (HS256 with the key's secret, millisecond claims) and
 * answers `invoke` whole and `sse-invoke` as add/finish events with the usage on the `meta:` line.
 */
describeProviderContract({
  descriptor: zhipuProvider,
  type: ChannelType.Zhipu,
  model: 'chatglm_turbo',
  key: 'glm-id.glm-secret',
  path: (stream) => `/api/paas/v3/model-api/chatglm_turbo/${stream ? 'sse-invoke' : 'invoke'}`,
  upstream: async () => {
    const mock = await startMockZhipuV3(KEYS);
    mock.behaviors.set('glm-refused', { failStatus: 400, failMessage: 'prompt too long' });
    return mock;
  },
  behaviorKey: null,
  refusal: { key: 'glm-id.wrong-secret', status: 401 },
  expectRequest(request) {
    expect(request.body).toEqual({
      prompt: [
        { role: 'user', content: 'be brief' },
        { role: 'assistant', content: 'OK.' },
        { role: 'user', content: 'hi' },
      ],
    });
  },
});

describe('Zhipu ChatGLM v3 wire and token', () => {
  it('signs an HS256 JWT with sign_type SIGN and millisecond claims', () => {
    const token = signChatGLMToken('id1.secret1', 1_700_000_000_000, 60_000);
    const [head, claims] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as unknown);
    expect(head).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(claims).toEqual({ api_key: 'id1', exp: 1_700_000_060_000, timestamp: 1_700_000_000_000 });
    expect(() => signChatGLMToken('no-dot', Date.now())).toThrow('Zhipu ChatGLM keys are written id.secret');
    expect(() => zhipuProvider.checkKey!('a.b.c')).toThrow('id.secret');
  });

  it('keeps a token per key', () => {
    const now = Date.now();
    expect(chatGLMToken('k1.s1', now)).toBe(chatGLMToken('k1.s1', now + 1000));
    expect(chatGLMToken('k2.s2', now)).not.toBe(chatGLMToken('k1.s1', now));
  });

  it('reads quoted and escaped content', () => {
    expect(chatGLMContent('" Hi\\n\\"there\\""')).toBe(' Hi\n"there"');
    expect(chatGLMContent('plain')).toBe('plain');
  });

  it('frames multi-line text, CRLF and the meta line across chunk boundaries', () => {
    const f = new ChatGLMFramer();
    const wire =
      'event:add\r\nid:1\r\ndata:line one\r\ndata:line two\r\n\r\nevent:finish\nid:1\ndata:\nmeta:{"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n';
    const events = [...f.push(Buffer.from(wire.slice(0, 17))), ...f.push(Buffer.from(wire.slice(17))), ...f.flush()];
    const state = chatGLMChat.newDecodeState();
    expect(events.flatMap((e) => chatGLMChat.decodeEvent(state, e))).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'text', text: 'line one\nline two' },
      { type: 'stop', reason: 'stop' },
      {
        type: 'usage',
        usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      { type: 'end' },
    ]);
  });
});
