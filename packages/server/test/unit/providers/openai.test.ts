import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { openAIProvider } from '../../../src/relay/providers/openai/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** OpenAI Chat Completions against the mock's `/v1/chat/completions` (test/support/mock-upstream.ts). */
describeProviderContract({
  descriptor: openAIProvider,
  type: ChannelType.OpenAI,
  model: 'gpt-4o-mini',
  key: 'sk-contract',
  path: '/v1/chat/completions',
  expectRequest(request, stream) {
    expect(request.headers.authorization).toBe('Bearer sk-contract');
    expect(request.body).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      ...(stream ? { stream: true } : {}),
    });
  },
});
