import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';

const DEFAULT_API_VERSION = '2024-10-21';

/**
 * Azure OpenAI (type 3): deployment URL `{base}/openai/deployments/{deployment}/{path}?api-version=…`, the
 * deployment being the (mapped) model name with dots removed as Azure requires, key in `api-key`; the API
 * version comes from the channel's `other` field.
 */
export const azureAdaptor: UpstreamAdaptor<'openai'> = {
  format: 'openai',
  target({ channel, key, model, openaiPath }) {
    const deployment = model.replace(/\./g, '');
    const url = new URL(
      `${baseUrlOf(channel)}/openai/deployments/${encodeURIComponent(deployment)}${openaiPath.replace(/^\/v1/, '')}`,
    );
    url.searchParams.set('api-version', channel.other.trim() || DEFAULT_API_VERSION);
    return { url, headers: { 'content-type': 'application/json', 'api-key': key } };
  },
};
