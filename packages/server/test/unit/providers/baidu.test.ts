import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { ernieEndpoint } from '../../../src/relay/providers/baidu/adaptor.js';
import { ernieChat, ernieUsageToIR } from '../../../src/relay/providers/baidu/convert.js';
import { baiduProvider } from '../../../src/relay/providers/baidu/descriptor.js';
import { ErnieTokens } from '../../../src/relay/providers/baidu/token.js';
import { describeProviderContract } from '../../support/provider-contract.js';
import { startMockErnie } from '../../support/mock-ernie.js';

const CLIENTS = { 'ernie-client': 'ernie-secret', 'other-client': 'other-secret' };

/**
 * Baidu ERNIE v1 against a mock that issues access tokens for known client id/secret pairs and takes only its own
 * tokens on the chat API; a refused token or argument comes in a 200 answer, as Baidu answers.
 */
describeProviderContract({
  descriptor: baiduProvider,
  type: ChannelType.Baidu,
  model: 'ERNIE-4.0-8K',
  key: 'ernie-client|ernie-secret',
  path: '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro',
  upstream: async () => {
    const mock = await startMockErnie(CLIENTS);
    mock.behaviors.set('other-client', { failStatus: 400, failMessage: 'the messages must alternate' });
    return mock;
  },
  // The mock is told to fail by client id, in Baidu's 200 error shape: checked as a refusal.
  behaviorKey: null,
  refusal: { key: 'other-client|other-secret', status: 400 },
  expectRequest(request, stream) {
    expect(request.body).toEqual({
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
      ...(stream ? { stream: true } : {}),
    });
  },
});

describe('Baidu ERNIE wire and token', () => {
  it('maps models to their endpoints', () => {
    expect(ernieEndpoint('ERNIE-Bot')).toBe('completions');
    expect(ernieEndpoint('ERNIE-Speed-128K')).toBe('ernie-speed-128k');
    expect(ernieEndpoint('ERNIE-Lite-8K-0308')).toBe('ernie-lite-8k');
  });

  it('reads the completion tokens as the total less the prompt when they are not given', () => {
    expect(ernieUsageToIR({ prompt_tokens: 4, total_tokens: 10 })).toMatchObject({ inputTokens: 4, outputTokens: 6 });
  });

  it('reads error codes with their meaning', () => {
    expect(ernieChat.answerError!({ error_code: 110, error_msg: 'Access token invalid' })).toEqual({
      status: 401,
      message: 'Baidu error 110: Access token invalid',
    });
    expect(ernieChat.answerError!({ error_code: 18, error_msg: 'Open api qps request limit reached' })?.status).toBe(
      429,
    );
    expect(ernieChat.answerError!({ result: 'fine' })).toBeUndefined();
  });

  it('exchanges a key once and keeps its token; a bad secret is a 401; the cache is bounded', async () => {
    const mock = await startMockErnie(CLIENTS);
    try {
      const tokens = new ErnieTokens();
      const [a, b] = await Promise.all([
        tokens.token(mock.url, 'ernie-client|ernie-secret'),
        tokens.token(mock.url, 'ernie-client|ernie-secret'),
      ]);
      expect(a).toBe(b);
      expect(await tokens.token(mock.url, 'ernie-client|ernie-secret')).toBe(a);
      expect(mock.issued.get('ernie-client')).toBe(1);
      await expect(tokens.token(mock.url, 'ernie-client|wrong')).rejects.toMatchObject({
        status: 401,
        message: 'Baidu access token exchange failed: invalid_client: Client authentication failed',
      });
      await expect(tokens.token(mock.url, 'no-secret')).rejects.toMatchObject({ status: 401 });
      for (let i = 0; i < 520; i++) tokens['cache'].put(`k${i}`, { value: 't', expiresAt: Date.now() + 1e9 });
      expect(tokens.size).toBe(512);
    } finally {
      await mock.close();
    }
  });

  it('renews a token shortly before it expires', async () => {
    const mock = await startMockErnie(CLIENTS);
    try {
      let now = Date.now();
      const tokens = new ErnieTokens(() => now);
      const first = await tokens.token(mock.url, 'ernie-client|ernie-secret');
      now += 30 * 24 * 3600_000 - 30 * 60_000;
      expect(await tokens.token(mock.url, 'ernie-client|ernie-secret')).not.toBe(first);
      expect(mock.issued.get('ernie-client')).toBe(2);
    } finally {
      await mock.close();
    }
  });
});
