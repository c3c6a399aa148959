import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { cohereAdaptor } from './adaptor.js';
import { cohereChat } from './convert.js';
import { cohereRerank } from './rerank.js';

export const cohereProvider = defineProvider({
  name: 'cohere',
  types: [ChannelType.Cohere],
  formats: { cohere: cohereChat },
  adaptor: cohereAdaptor,
  rerank: cohereRerank,
});
