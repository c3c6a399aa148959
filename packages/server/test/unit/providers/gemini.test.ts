import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { geminiProvider } from '../../../src/relay/providers/gemini/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';

/** Gemini generateContent (SSE when streamed) against the mock's `/v1beta/models/…` (test/support/mock-native.ts). */
describeProviderContract({
  descriptor: geminiProvider,
  type: ChannelType.Gemini,
  model: 'gemini-2.5-flash',
  key: 'gm-contract',
  path: (stream) => `/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent' : 'generateContent'}`,
  expectRequest(request) {
    expect(request.headers['x-goog-api-key']).toBe('gm-contract');
    expect(request.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'be brief' }] },
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    });
  },
});
