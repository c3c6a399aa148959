import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { cohereProvider } from '../../../src/relay/providers/cohere/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** Cohere chat v2 against the mock's `/v2/chat` (test/support/mock-vendors.ts). */
describeProviderContract({
  descriptor: cohereProvider,
  type: ChannelType.Cohere,
  model: 'command-r',
  key: 'co-key',
  path: '/v2/chat',
  expectRequest(request, stream) {
    expect(request.headers.authorization).toBe('Bearer co-key');
    expect(request.body).toEqual({
      model: 'command-r',
      stream,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
  },
});
