import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';

/**
 * Coze (type 49): chat v3 at `{base}/v3/chat`, Bearer personal access token; the bot id is the (mapped) model
 * name; the body is the coze wire format (ir/coze.ts), always streamed.
 */
export const cozeAdaptor: UpstreamAdaptor<'coze'> = {
  format: 'coze',
  target({ channel, key }) {
    return {
      url: new URL(`${baseUrlOf(channel)}/v3/chat`),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    };
  },
};
