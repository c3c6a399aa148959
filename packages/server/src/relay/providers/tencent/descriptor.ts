import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { tencentAdaptor } from './adaptor.js';

export const tencentProvider = defineProvider({
  name: 'tencent',
  types: [ChannelType.Tencent],
  formats: ['hunyuan'],
  adaptor: tencentAdaptor,
});
