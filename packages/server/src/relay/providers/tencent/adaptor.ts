import { baseUrlOf } from '../base-url.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { UpstreamAdaptor } from '../types.js';
import { tc3Sign } from './tc3.js';

const ACTION = 'ChatCompletions';
const VERSION = '2023-09-01';
const CONTENT_TYPE = 'application/json';

/** `AppId|SecretId|SecretKey`; the app id is not part of the signature. */
function credentials(key: string): { secretId: string; secretKey: string } {
  const parts = key.split('|');
  if (parts.length !== 3 || !parts[1] || !parts[2])
    throw new UpstreamPrepareError('Tencent Hunyuan keys are written AppId|SecretId|SecretKey', 401);
  return { secretId: parts[1].trim(), secretKey: parts[2].trim() };
}

/**
 * Tencent Hunyuan (type 23): the Tencent Cloud API 3.0 `ChatCompletions` action (version 2023-09-01) POSTed to
 * `{base}/`, signed with TC3-HMAC-SHA256 over the final body; the region (optional for Hunyuan) comes from the
 * channel's `other` field. The body is the hunyuan wire format (ir/hunyuan.ts).
 */
export const tencentAdaptor: UpstreamAdaptor<'hunyuan'> = {
  format: 'hunyuan',
  target({ channel }) {
    const headers: Record<string, string> = {
      'content-type': CONTENT_TYPE,
      'x-tc-action': ACTION,
      'x-tc-version': VERSION,
    };
    if (channel.other.trim()) headers['x-tc-region'] = channel.other.trim();
    return { url: new URL(`${baseUrlOf(channel)}/`), headers };
  },
  prepare({ key }, req) {
    const { secretId, secretKey } = credentials(key);
    const body = JSON.stringify(req.body);
    const timestamp = Math.floor(Date.now() / 1000);
    const { authorization } = tc3Sign({
      secretId,
      secretKey,
      service: 'hunyuan',
      host: req.url.host,
      contentType: CONTENT_TYPE,
      payload: body,
      timestamp,
    });
    return { url: req.url, headers: { ...req.headers, 'x-tc-timestamp': String(timestamp), authorization }, body };
  },
};
