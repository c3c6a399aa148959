import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { azureAdaptor } from './adaptor.js';

/** Azure OpenAI: the OpenAI format at a deployment URL. */
export const azureProvider = defineProvider({
  name: 'azure',
  types: [ChannelType.Azure],
  formats: ['openai'],
  adaptor: azureAdaptor,
});
