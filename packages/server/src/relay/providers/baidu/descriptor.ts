import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { baiduAdaptor } from './adaptor.js';
import { ernieChat } from './convert.js';

export const baiduProvider = defineProvider({
  name: 'baidu',
  types: [ChannelType.Baidu],
  formats: { ernie: ernieChat },
  adaptor: baiduAdaptor,
});
