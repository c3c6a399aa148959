import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { difyAdaptor } from './adaptor.js';
import { difyChat } from './convert.js';

export const difyProvider = defineProvider({
  name: 'dify',
  types: [ChannelType.Dify],
  formats: { dify: difyChat },
  adaptor: difyAdaptor,
});
