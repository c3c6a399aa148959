import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { tencentProvider } from '../../../src/relay/providers/tencent/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/**
 * Tencent Hunyuan ChatCompletions against the mock's `/`, which checks the TC3 signature over the bytes it
 * received: a wrong secret is refused in a 200 answer, as Tencent does.
 */
describeProviderContract({
  descriptor: tencentProvider,
  type: ChannelType.Tencent,
  model: 'hunyuan-lite',
  key: '1250000000|AKIDmockTollway|mock-secret-key',
  path: '/',
  // Each signed request has its own Authorization: the mock cannot be told to fail for it.
  behaviorKey: null,
  refusal: { key: '1250000000|AKIDmockTollway|wrong-secret', status: 401 },
  expectRequest(request, stream) {
    expect(request.headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDmockTollway\//);
    expect(request.headers['x-tc-action']).toBe('ChatCompletions');
    expect(request.body).toEqual({
      Model: 'hunyuan-lite',
      Stream: stream,
      Messages: [
        { Role: 'system', Content: 'be brief' },
        { Role: 'user', Content: 'hi' },
      ],
    });
  },
});
