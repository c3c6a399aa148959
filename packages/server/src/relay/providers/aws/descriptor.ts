import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { bedrockAdaptorFor } from './adaptor.js';

/** AWS Bedrock: Claude through InvokeModel, other models through Converse; keys `Ak|Sk|Region` (the row's key format). */
export const awsProvider = defineProvider({
  name: 'aws',
  types: [ChannelType.Aws],
  formats: ['anthropic', 'converse'],
  adaptor: bedrockAdaptorFor,
});
