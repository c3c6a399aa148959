import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';

/**
 * Dify (type 37): a chat app's `{base}/v1/chat-messages`, Bearer app key (the key names the app, so the model
 * name is only the price and log label); the body is the dify wire format (ir/dify.ts).
 */
export const difyAdaptor: UpstreamAdaptor<'dify'> = {
  format: 'dify',
  target({ channel, key }) {
    const base = baseUrlOf(channel, 'https://api.dify.ai').replace(/\/v1$/, '');
    return {
      url: new URL(`${base}/v1/chat-messages`),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    };
  },
};
