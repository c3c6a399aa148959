import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { palmAdaptor, palmChat } from './adaptor.js';

/** PaLM: a retired API, answered with its retirement (adaptor.ts). */
export const palmProvider = defineProvider({
  name: 'palm',
  types: [ChannelType.PaLM],
  formats: { palm: palmChat },
  adaptor: palmAdaptor,
});
