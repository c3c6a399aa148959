import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { vertexProvider } from '../../../src/relay/providers/vertex/descriptor.js';
import { makeServiceAccount, startMockVertex } from '../../support/mock-vertex.js';
import { describeProviderContract } from '../../support/provider-contract.js';

const PROJECT = 'proj-contract';
let serviceAccount: ReturnType<typeof makeServiceAccount> | undefined;

/** The mock Vertex, trusting one service account whose key points at its token endpoint. */
async function upstream() {
  const mock = await startMockVertex();
  serviceAccount = makeServiceAccount(PROJECT, mock.tokenUri);
  mock.trust(serviceAccount.clientEmail, serviceAccount.publicKey);
  return mock;
}

/** The channel key is made with the mock (its token endpoint); read when the calls are made. */
const contract = { descriptor: vertexProvider, type: ChannelType.VertexAi, other: 'us-central1', behaviorKey: PROJECT };
const base = (publisher: string, model: string) =>
  `/v1/projects/${PROJECT}/locations/us-central1/publishers/${publisher}/models/${model}`;

describeProviderContract({
  ...contract,
  get key() {
    return serviceAccount?.keyText ?? '';
  },
  model: 'gemini-2.5-flash',
  upstream,
  path: (stream) =>
    `${base('google', 'gemini-2.5-flash')}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  expectRequest(request) {
    expect(request.headers.authorization).toMatch(/^Bearer /);
    expect(request.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  },
});

/** Claude on Vertex: Anthropic bodies without `model`, with Vertex's `anthropic_version`, at Anthropic's publisher. */
describeProviderContract({
  ...contract,
  get key() {
    return serviceAccount?.keyText ?? '';
  },
  model: 'claude-3-5-haiku-20241022',
  upstream,
  path: (stream) => `${base('anthropic', 'claude-3-5-haiku@20241022')}:${stream ? 'streamRawPredict' : 'rawPredict'}`,
  expectRequest(request) {
    expect(request.headers.authorization).toMatch(/^Bearer /);
    expect(request.body).toMatchObject({
      anthropic_version: 'vertex-2023-10-16',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(request.body).not.toHaveProperty('model');
  },
});
