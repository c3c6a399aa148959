import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { cozeAdaptor } from './adaptor.js';
import { cozeChat } from './convert.js';

export const cozeProvider = defineProvider({
  name: 'coze',
  types: [ChannelType.Coze],
  formats: { coze: cozeChat },
  adaptor: cozeAdaptor,
});
