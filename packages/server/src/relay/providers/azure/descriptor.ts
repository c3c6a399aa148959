import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { openAIChat } from '../openai/chat.js';
import { azureAdaptor } from './adaptor.js';

/** Azure OpenAI: the OpenAI format at a deployment URL. */
export const azureProvider = defineProvider({
  name: 'azure',
  types: [ChannelType.Azure],
  formats: { openai: openAIChat },
  adaptor: azureAdaptor,
});
