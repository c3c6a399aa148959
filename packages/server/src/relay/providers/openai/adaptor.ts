import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';

/** Every OpenAI-compatible vendor: base URL + the OpenAI path, Bearer key, optional organization. */
export const openAIAdaptor: UpstreamAdaptor = {
  format: 'openai',
  target({ channel, key, openaiPath }) {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    if (channel.organization) headers['openai-organization'] = channel.organization;
    return { url: new URL(baseUrlOf(channel) + openaiPath), headers };
  },
};
