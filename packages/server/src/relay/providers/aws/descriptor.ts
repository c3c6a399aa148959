import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { anthropicMessages } from '../anthropic/convert.js';
import { bedrockAdaptorFor } from './adaptor.js';
import { bedrockConverse } from './converse.js';

/** AWS Bedrock: Claude through InvokeModel, other models through Converse; keys `Ak|Sk|Region` (the row's key format). */
export const awsProvider = defineProvider({
  name: 'aws',
  types: [ChannelType.Aws],
  formats: { anthropic: anthropicMessages, converse: bedrockConverse },
  adaptor: bedrockAdaptorFor,
});
