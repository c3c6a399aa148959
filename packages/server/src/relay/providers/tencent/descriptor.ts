import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { tencentAdaptor } from './adaptor.js';
import { hunyuanChat } from './convert.js';

export const tencentProvider = defineProvider({
  name: 'tencent',
  types: [ChannelType.Tencent],
  formats: { hunyuan: hunyuanChat },
  adaptor: tencentAdaptor,
});
