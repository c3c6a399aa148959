import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { chatGLMToken } from './jwt.js';
import { ChatGLMFramer } from './stream.js';

/**
 * Zhipu ChatGLM v3 (type 16): `{base}/api/paas/v3/model-api/{model}/invoke` (`sse-invoke` when streaming), the
 * Authorization header a JWT signed with the key's secret (cached per key until shortly before it expires).
 */
export const zhipuAdaptor: UpstreamAdaptor<'chatglm'> = {
  format: 'chatglm',
  target({ channel, model, stream }) {
    const method = stream ? 'sse-invoke' : 'invoke';
    return {
      url: new URL(`${baseUrlOf(channel)}/api/paas/v3/model-api/${encodeURIComponent(model)}/${method}`),
      headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' },
    };
  },
  prepare({ key }, req) {
    return {
      url: req.url,
      headers: { ...req.headers, authorization: chatGLMToken(key) },
      body: JSON.stringify(req.body),
    };
  },
  streamFramer: () => new ChatGLMFramer(),
};
