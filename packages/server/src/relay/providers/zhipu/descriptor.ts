import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { zhipuAdaptor } from './adaptor.js';
import { chatGLMChat } from './convert.js';
import { signChatGLMToken } from './jwt.js';

export const zhipuProvider = defineProvider({
  name: 'zhipu',
  types: [ChannelType.Zhipu],
  formats: { chatglm: chatGLMChat },
  adaptor: zhipuAdaptor,
  checkKey(key) {
    signChatGLMToken(key, Date.now());
  },
});
