import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';

/** Cohere (type 34): chat v2 at `{base}/v2/chat`, Bearer key; the body is the cohere wire format (ir/cohere.ts). */
export const cohereAdaptor: UpstreamAdaptor<'cohere'> = {
  format: 'cohere',
  target({ channel, key }) {
    return {
      url: new URL(`${baseUrlOf(channel)}/v2/chat`),
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
    };
  },
};
