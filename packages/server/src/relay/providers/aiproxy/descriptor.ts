import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { aiProxyLibraryAdaptor } from './adaptor.js';
import { libraryChat } from './convert.js';

export const aiProxyLibraryProvider = defineProvider({
  name: 'aiproxy',
  types: [ChannelType.AIProxyLibrary],
  formats: { 'aiproxy-library': libraryChat },
  adaptor: aiProxyLibraryAdaptor,
});
