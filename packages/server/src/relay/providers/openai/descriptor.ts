import { channelTypes } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { openAIAdaptor } from './adaptor.js';
import { openAICompatibleBalances } from './balance.js';
import { openAIChat } from './chat.js';
import { listOpenAIModels } from './models.js';

/** Every OpenAI-compatible type: the rows of shared's channel-types.ts whose format is `openai` (vendor paths in vendors.ts). */
export const openAIProvider = defineProvider({
  name: 'openai',
  types: channelTypes.filter((t) => t.format === 'openai').map((t) => t.id),
  formats: { openai: openAIChat },
  adaptor: openAIAdaptor,
  listModels: listOpenAIModels,
  balances: openAICompatibleBalances,
});
