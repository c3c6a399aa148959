import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { codexProvider } from '../../../src/relay/providers/codex/descriptor.js';
import { describeProviderContract } from '../../support/provider-contract.js';
import { startMockCodex } from '../../support/mock-codex.js';

const KEY = JSON.stringify({ access_token: 'at-codex', account_id: 'acct-1', refresh_token: 'rt-codex' });

/**
 * Codex against a mock of the ChatGPT backend that checks the access token, its account id, and that the call
 * streams, stores nothing and carries instructions.
 */
describeProviderContract({
  descriptor: codexProvider,
  type: ChannelType.Codex,
  model: 'gpt-5-codex',
  key: KEY,
  path: '/backend-api/codex/responses',
  upstream: () => startMockCodex({ 'at-codex': 'acct-1' }),
  behaviorKey: 'at-codex',
  expectRequest(request) {
    expect(request.headers['chatgpt-account-id']).toBe('acct-1');
    expect(request.headers.originator).toBe('codex_cli_rs');
    expect(request.body).toMatchObject({ model: 'gpt-5-codex', instructions: 'be brief', store: false, stream: true });
  },
});

describe('Codex key', () => {
  it('is a JSON credential with an access token and an account id', () => {
    expect(codexProvider.jsonKeys).toBe(true);
    expect(() => codexProvider.checkKey!('sk-plain')).toThrow('JSON object with access_token and account_id');
    expect(() => codexProvider.checkKey!('{"access_token":"x"}')).toThrow('no account_id');
    expect(() => codexProvider.checkKey!(KEY)).not.toThrow();
  });
});
