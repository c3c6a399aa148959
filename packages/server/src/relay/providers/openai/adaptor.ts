import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { compatibleTarget } from './vendors.js';

/**
 * Every OpenAI-compatible vendor: base URL + the OpenAI path (moved under the vendor's prefix, see vendors.ts),
 * Bearer key, optional organization.
 */
export const openAIAdaptor: UpstreamAdaptor<'openai'> = {
  format: 'openai',
  target({ channel, key, openaiPath }) {
    const vendor = compatibleTarget(channel, key, openaiPath);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: `Bearer ${vendor.key}`,
    };
    if (channel.organization) headers['openai-organization'] = channel.organization;
    return { url: new URL(baseUrlOf(channel) + vendor.path), headers };
  },
};
