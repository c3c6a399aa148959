import { ChannelType } from '@tollway/shared';
import { describeProviderContract } from '../../support/provider-contract.js';
import { palmProvider } from '../../../src/relay/providers/palm/descriptor.js';

/** PaLM was retired by Google: nothing is sent, every call fails with 410 saying so. */
describeProviderContract({
  descriptor: palmProvider,
  type: ChannelType.PaLM,
  model: 'chat-bison-001',
  key: 'palm-key',
  path: '/v1beta2/models/chat-bison-001:generateMessage',
  retired: { status: 410, message: /Google retired the PaLM API/ },
});
