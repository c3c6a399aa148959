import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { openAIResponses } from '../openai/responses.js';
import { codexAdaptor } from './adaptor.js';
import { codexCredential } from './credential.js';

export const codexProvider = defineProvider({
  name: 'codex',
  types: [ChannelType.Codex],
  formats: { responses: openAIResponses },
  adaptor: codexAdaptor,
  jsonKeys: true,
  checkKey(key) {
    codexCredential(key);
  },
});
