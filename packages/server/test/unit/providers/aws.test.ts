import { ChannelType } from '@tollway/shared';
import { expect } from 'vitest';
import { awsProvider } from '../../../src/relay/providers/aws/descriptor.js';
import { startMockBedrock } from '../../support/mock-bedrock.js';
import { describeProviderContract } from '../../support/provider-contract.js';

const ACCESS_KEY = 'AKIACONTRACT';
const SECRET = 'contract-secret';
const KEY = `${ACCESS_KEY}|${SECRET}|us-east-1`;
/** The mock checks each request's SigV4 signature with the secrets it knows. */
const upstream = () => startMockBedrock({ [ACCESS_KEY]: SECRET });

/** AWS Bedrock, Claude through InvokeModel (Anthropic bodies; the answer streams as an AWS event stream). */
describeProviderContract({
  descriptor: awsProvider,
  type: ChannelType.Aws,
  model: 'claude-3-haiku-20240307',
  key: KEY,
  behaviorKey: ACCESS_KEY,
  upstream,
  path: (stream) =>
    `/model/anthropic.claude-3-haiku-20240307-v1%3A0/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
  expectRequest(request) {
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIACONTRACT\//);
    expect(request.body).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(request.body).not.toHaveProperty('model');
  },
});

/** AWS Bedrock, every other model through the Converse API (its own wire format, `converse`). */
describeProviderContract({
  descriptor: awsProvider,
  type: ChannelType.Aws,
  model: 'meta.llama3-70b-instruct-v1:0',
  key: KEY,
  behaviorKey: ACCESS_KEY,
  upstream,
  path: (stream) => `/model/meta.llama3-70b-instruct-v1%3A0/${stream ? 'converse-stream' : 'converse'}`,
  expectRequest(request) {
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIACONTRACT\//);
    expect(request.body).toMatchObject({
      system: [{ text: 'be brief' }],
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
    });
  },
});
