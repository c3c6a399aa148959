import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { difyProvider } from '../../../src/relay/providers/dify/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** A Dify chat app against the mock's `/v1/chat-messages`: agent apps answer only when streaming, so every call streams. */
describeProviderContract({
  descriptor: difyProvider,
  type: ChannelType.Dify,
  model: 'dify-app',
  key: 'app-dify-key',
  path: '/v1/chat-messages',
  expectRequest(request) {
    expect(request.headers.authorization).toBe('Bearer app-dify-key');
    expect(request.body).toEqual({
      inputs: { system: 'be brief' },
      query: 'hi',
      response_mode: 'streaming',
      user: 'tollway',
    });
  },
});
