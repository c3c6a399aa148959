import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { azureProvider } from '../../../src/relay/providers/azure/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** Azure OpenAI: the OpenAI format at a deployment URL (the model's dots removed), the key in `api-key`. */
describeProviderContract({
  descriptor: azureProvider,
  type: ChannelType.Azure,
  model: 'gpt-4.1-mini',
  key: 'az-contract',
  other: '2025-01-01-preview',
  path: '/openai/deployments/gpt-41-mini/chat/completions',
  // The mock names a credential by its Bearer token or x-api-key; Azure's `api-key` header reads as no key.
  behaviorKey: '',
  expectRequest(request) {
    expect(request.headers['api-key']).toBe('az-contract');
    expect(request.body).toMatchObject({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
  },
});
