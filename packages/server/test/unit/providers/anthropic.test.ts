import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { anthropicProvider } from '../../../src/relay/providers/anthropic/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** Anthropic Messages against the mock's `/v1/messages` (test/support/mock-native.ts). */
describeProviderContract({
  descriptor: anthropicProvider,
  type: ChannelType.Anthropic,
  model: 'claude-sonnet-4-5-20250929',
  key: 'sk-ant-contract',
  path: '/v1/messages',
  expectRequest(request, stream) {
    expect(request.headers['x-api-key']).toBe('sk-ant-contract');
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.body).toMatchObject({
      model: 'claude-sonnet-4-5-20250929',
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
      ...(stream ? { stream: true } : {}),
    });
    // Claude needs max_tokens: the Claude settings' default fills it.
    expect(request.body.max_tokens).toBeGreaterThan(0);
  },
});
