import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { ernieTokens } from './token.js';

/** Model names whose chat endpoint is not the lower-cased name (Baidu's published endpoint names). */
const ENDPOINTS: Readonly<Record<string, string>> = {
  'ERNIE-4.0': 'completions_pro',
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-Bot': 'completions',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-Bot-turbo': 'eb-instant',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Bot-8K': 'ernie_bot_8k',
  'ERNIE-Speed': 'ernie_speed',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Lite-8K-0308': 'ernie-lite-8k',
  'ERNIE-Tiny-8K': 'ernie-tiny-8k',
  'BLOOMZ-7B': 'bloomz_7b1',
};

/** The wenxinworkshop chat endpoint of a model. */
export const ernieEndpoint = (model: string): string => ENDPOINTS[model] ?? model.toLowerCase();

/**
 * Baidu ERNIE v1 (type 15): `{base}/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/{endpoint}?access_token=…`, the token
 * exchanged for the key's client id and secret at `{base}/oauth/2.0/token` and cached until shortly before it expires.
 */
export const baiduAdaptor: UpstreamAdaptor<'ernie'> = {
  format: 'ernie',
  target({ channel, model }) {
    return {
      url: new URL(
        `${baseUrlOf(channel)}/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/${encodeURIComponent(ernieEndpoint(model))}`,
      ),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    };
  },
  async prepare({ channel, key }, req) {
    const token = await ernieTokens.token(baseUrlOf(channel), key);
    const url = new URL(req.url);
    url.searchParams.set('access_token', token);
    return { url, headers: req.headers, body: JSON.stringify(req.body) };
  },
  // Error 110/111 (token invalid or expired) reads as 401: the next call exchanges the key again.
  credentialRefused({ channel, key }) {
    ernieTokens.drop(baseUrlOf(channel), key);
  },
};
