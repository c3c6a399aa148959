import { ChannelType } from '@tollway/shared';
import { describeProviderContract } from '../../support/provider-contract.js';
import { replicateProvider } from '../../../src/relay/providers/replicate/descriptor.js';

/** Replicate serves image generation only (integration/replicate-images.test.ts): a chat call is refused with 501, nothing sent. */
describeProviderContract({
  descriptor: replicateProvider,
  type: ChannelType.Replicate,
  model: 'black-forest-labs/flux-schnell',
  key: 'r8_contract',
  path: '/v1/models/black-forest-labs/flux-schnell/predictions',
  retired: { status: 501, message: /image generation/ },
});
