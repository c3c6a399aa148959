import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { cozeProvider } from '../../../src/relay/providers/coze/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** A Coze bot (the model names the bot id) against the mock's `/v3/chat`, which refuses a revoked token in a 200 answer. */
describeProviderContract({
  descriptor: cozeProvider,
  type: ChannelType.Coze,
  model: '7350001',
  key: 'pat-coze',
  path: '/v3/chat',
  refusal: { key: 'pat-revoked', status: 401 },
  expectRequest(request) {
    expect(request.headers.authorization).toBe('Bearer pat-coze');
    expect(request.body).toEqual({
      bot_id: '7350001',
      user_id: 'tollway',
      stream: true,
      auto_save_history: false,
      additional_messages: [{ role: 'user', type: 'question', content: 'hi', content_type: 'text' }],
    });
  },
});
