import { baseUrlOf } from '../base-url.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { UpstreamAdaptor } from '../types.js';
import { sparkRequestFor } from './convert.js';
import { sparkRoute, sparkSignedUrl } from './sign.js';
import { sparkSockets } from './socket.js';
import type { SparkRequest } from './wire.js';

const DEFAULT_BASE = 'https://spark-api.xf-yun.com';

/** `APPID|APISecret|APIKey`, as the Spark console lists them. */
function credentials(key: string): { appId: string; apiSecret: string; apiKey: string } {
  const [appId = '', apiSecret = '', apiKey = '', extra] = key.split('|').map((s) => s.trim());
  if (!appId || !apiSecret || !apiKey || extra !== undefined)
    throw new UpstreamPrepareError('iFlytek Spark keys are written APPID|APISecret|APIKey', 401);
  return { appId, apiSecret, apiKey };
}

/**
 * iFlytek Spark (type 18): one WebSocket per call to `{base}/{version}/chat` (an http(s) base URL is taken as ws(s)) (the version from the model or the
 * channel's `other` field, sign.ts), the URL signed with the key's API secret at the time of the call; the app id
 * and the version's domain go into the frame. The socket dispatcher (socket.ts) carries it.
 */
export const xunfeiAdaptor: UpstreamAdaptor<'spark'> = {
  format: 'spark',
  target({ channel, model }) {
    const base = baseUrlOf(channel, DEFAULT_BASE).replace(/^http(s?):/, 'ws$1:');
    return { url: new URL(`${base}${sparkRoute(model, channel.other).path}`), headers: {} };
  },
  prepare({ channel, key, model }, req) {
    const { appId, apiSecret, apiKey } = credentials(key);
    const { domain } = sparkRoute(model, channel.other);
    const body = sparkRequestFor(req.body as SparkRequest, appId, domain);
    const url = sparkSignedUrl(req.url, apiKey, apiSecret, new Date().toUTCString());
    return { url, headers: req.headers, body: JSON.stringify(body) };
  },
  dispatcher: () => sparkSockets,
};
