import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { xunfeiAdaptor } from './adaptor.js';
import { sparkChat } from './convert.js';

export const xunfeiProvider = defineProvider({
  name: 'xunfei',
  types: [ChannelType.Xunfei],
  formats: { spark: sparkChat },
  adaptor: xunfeiAdaptor,
});
