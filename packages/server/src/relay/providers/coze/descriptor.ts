import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { cozeAdaptor } from './adaptor.js';

export const cozeProvider = defineProvider({
  name: 'coze',
  types: [ChannelType.Coze],
  formats: ['coze'],
  adaptor: cozeAdaptor,
});
